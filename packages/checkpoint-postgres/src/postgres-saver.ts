import {
  assertLeaseCurrent,
  BodyEncoder,
  type Checkpoint,
  type CheckpointRef,
  type CheckpointSaver,
  type CheckpointTuple,
  type Clock,
  type CommitRequest,
  CorruptCheckpointError,
  commitThread,
  decodeBlob,
  decodeCheckpoint,
  decodeWrite,
  encodeBlobs,
  encodeCheckpoint,
  encodeWrites,
  type HolderCheck,
  isLocalHolderDead,
  jsonSerializer,
  type Lease,
  type LeasedTuple,
  type ListOptions,
  matchesFilter,
  nextLease,
  type PendingWrite,
  type PutRequest,
  rebuildValues,
  type Serializer,
  type StoredBlob,
  systemClock,
  type WriteRow,
  writesTargetMissing,
} from "@trellis/checkpoint";
import pg from "pg";
import { PgRunner, type Query } from "./postgres-connection.js";
import { migratePostgres, quoteSchema } from "./postgres-migrations.js";
import type { PostgresSaverOptions } from "./postgres-saver-options.js";
import { postgresSql } from "./postgres-sql.js";
import { expired, leaseOf, type ThreadRow } from "./postgres-thread-row.js";

export type { PostgresSaverOptions } from "./postgres-saver-options.js";

interface CheckpointRowData {
  id: string;
  body: string;
  sum: string;
}

const LIST_PAGE = 100;

/**
 * A checkpoint saver on PostgreSQL (`pg`): a connection pool, numbered migrations in a schema of your
 * choice, a checkpoint with its values and writes in one transaction, the thread's lease checked in
 * that transaction under a row lock, no named prepared statements (PgBouncer transaction pooling
 * works), and a broken connection retried without duplicating anything. Tables are created on first
 * use, or call {@link PostgresSaver.setup} at deploy time.
 *
 * @example
 * import { PostgresSaver } from "@trellis/checkpoint-postgres";
 *
 * const saver = new PostgresSaver({ connectionString: process.env.DATABASE_URL, schema: "trellis" });
 * await saver.setup();
 * const graph = builder.compile({ checkpointer: saver });
 */
export class PostgresSaver implements CheckpointSaver {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #schema: string;
  readonly #sql: ReturnType<typeof postgresSql>;
  readonly #db: PgRunner;
  readonly #serde: Serializer;
  readonly #clock: Clock;
  readonly #isHolderDead: HolderCheck;
  #ready: Promise<number> | undefined;

  constructor(options: PostgresSaverOptions = {}) {
    this.#schema = options.schema ?? "trellis";
    this.#sql = postgresSql(quoteSchema(this.#schema));
    this.#serde = options.serializer ?? jsonSerializer;
    this.#clock = options.clock ?? systemClock;
    this.#isHolderDead = options.isHolderDead ?? isLocalHolderDead;
    this.#ownsPool = !options.pool;
    this.#pool =
      options.pool ??
      new pg.Pool({ ...options.poolConfig, connectionString: options.connectionString } as pg.PoolConfig);
    // An idle client the server dropped must not crash the process; the pool replaces it.
    if (this.#ownsPool) this.#pool.on("error", () => {});
    this.#db = new PgRunner(this.#pool, options.retries ?? 3);
  }

  /** The pool, for health checks and tests. */
  get pool(): pg.Pool {
    return this.#pool;
  }

  /**
   * Creates or migrates the schema (once per saver; later calls return the same promise). Every method
   * calls it first, so calling it yourself is only needed to fail fast at startup.
   *
   * @example
   * const version = await saver.setup(); // 2
   */
  setup(): Promise<number> {
    this.#ready ??= migratePostgres(this.#pool, this.#schema).catch((error) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async get(ref: CheckpointRef): Promise<CheckpointTuple | undefined> {
    await this.setup();
    const ns = ref.namespace ?? "";
    for (let attempt = 0; ; attempt++) {
      const [head] = await this.#db.query<ThreadRow & Partial<CheckpointRowData>>(this.#sql.head, [
        ref.threadId,
        ns,
        ref.checkpointId ?? null,
      ]);
      if (!head) return undefined;
      if (expired(head, this.#clock.now())) {
        await this.#purgeIfExpired(ref.threadId);
        return undefined;
      }
      if (head.id === undefined || head.id === null) return undefined;
      const tuple = await this.#tupleOrVanished(ref.threadId, ns, head as CheckpointRowData);
      if (tuple) return tuple;
      // The checkpoint was pruned or deleted between the two reads: read again.
      if (attempt >= 2) return undefined;
    }
  }

  /** A `quick` put (a run's input, see `PutRequest.quick`) commits without waiting for the WAL flush. */
  async put(request: PutRequest): Promise<void> {
    const { checkpoint } = request;
    const put = this.#encodePut(request);
    await this.setup();
    await this.#db.transaction(async (query) => {
      const now = this.#clock.now();
      const thread = await this.#openThread(query, checkpoint.threadId, now, true);
      if (request.lease) assertLeaseCurrent(leaseOf(checkpoint.threadId, thread), request.lease, now);
      await query(this.#sql.put, putParams(put, now));
    }, request.quick === true);
  }

  async putWrites(ref: CheckpointRef & { checkpointId: string }, writes: PendingWrite[], lease?: Lease): Promise<void> {
    const rows = encodeWrites(this.#serde, writes, new BodyEncoder(this.#serde));
    await this.setup();
    await this.#db.transaction(async (query) => {
      const now = this.#clock.now();
      const thread = await this.#openThread(query, ref.threadId, now, false);
      if (lease) assertLeaseCurrent(thread ? leaseOf(ref.threadId, thread) : undefined, lease, now);
      await this.#storeWrites(query, thread !== undefined, ref, rows, now);
    });
  }

  /** The lease and the read in one transaction, under the thread row's lock. */
  async acquireLeaseAndGet(ref: CheckpointRef, owner: string, ttlMs: number): Promise<LeasedTuple> {
    await this.setup();
    const ns = ref.namespace ?? "";
    return this.#db.transaction(async (query) => {
      const lease = await this.#takeLease(query, ref.threadId, owner, ttlMs);
      const [head] = await query<ThreadRow & Partial<CheckpointRowData>>(this.#sql.head, [
        ref.threadId,
        ns,
        ref.checkpointId ?? null,
      ]);
      const tuple =
        head?.id === undefined || head.id === null
          ? undefined
          : await this.#tupleOrVanished(ref.threadId, ns, head as CheckpointRowData, query);
      return { lease, tuple };
    });
  }

  async commit(request: CommitRequest): Promise<void> {
    const threadId = commitThread(request);
    const bodies = new BodyEncoder(this.#serde);
    const put = request.put && this.#encodePut(request.put, bodies);
    const writes = request.writes && encodeWrites(this.#serde, request.writes.writes, bodies);
    await this.setup();
    await this.#db.transaction(async (query) => {
      const now = this.#clock.now();
      const thread = await this.#openThread(query, threadId, now, put !== undefined);
      if (request.lease) assertLeaseCurrent(thread ? leaseOf(threadId, thread) : undefined, request.lease, now);
      const target = request.writes?.ref;
      // writes against the checkpoint this commit puts go in after it; any others first
      const onPut =
        put &&
        target &&
        target.checkpointId === put.checkpoint.id &&
        (target.namespace ?? "") === put.checkpoint.namespace;
      if (target && writes && !onPut) await this.#storeWrites(query, thread !== undefined, target, writes, now);
      if (put) await query(this.#sql.put, putParams(put, now));
      if (target && writes && onPut) await this.#storeWrites(query, true, target, writes, now);
      if (request.lease && request.release) {
        await query(this.#sql.releaseLease, [threadId, request.lease.owner, request.lease.epoch]);
      }
    });
  }

  #encodePut(request: PutRequest, bodies = new BodyEncoder(this.#serde)): EncodedPut {
    return {
      checkpoint: request.checkpoint,
      row: encodeCheckpoint(this.#serde, request.checkpoint),
      blobs: encodeBlobs(this.#serde, request.blobs, bodies),
      writes: encodeWrites(this.#serde, request.writes ?? [], bodies),
    };
  }

  /** Records writes against an existing checkpoint, inside the caller's transaction. */
  async #storeWrites(
    query: Query,
    threadExists: boolean,
    ref: CheckpointRef & { checkpointId: string },
    rows: WriteRow[],
    now: number,
  ): Promise<void> {
    const ns = ref.namespace ?? "";
    const found = threadExists && (await query(this.#sql.checkpointExists, [ref.threadId, ns, ref.checkpointId]));
    if (!found || found.length === 0) {
      throw writesTargetMissing(ref);
    }
    const shared = sharedBodies(rows);
    await query(this.#sql.putWrites, [
      ref.threadId,
      ns,
      ref.checkpointId,
      rows.map((w) => w.taskId),
      rows.map((w) => w.channel),
      rows.map(inlineBody),
      rows.map((w) => w.sum),
      rows.map((w) => w.ref),
      now,
      shared.refs,
      shared.bodies,
    ]);
  }

  async *list(threadId: string, options: ListOptions = {}): AsyncIterable<CheckpointTuple> {
    await this.setup();
    const ns = options.namespace ?? "";
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    let before = options.before ?? null;
    if (remaining <= 0) return;
    const [head] = await this.#db.query<ThreadRow>(this.#sql.head, [threadId, ns, null]);
    if (!head) return;
    if (expired(head, this.#clock.now())) {
      await this.#purgeIfExpired(threadId);
      return;
    }
    while (remaining > 0) {
      const page = await this.#db.query<CheckpointRowData>(this.#sql.page, [threadId, ns, before, LIST_PAGE]);
      for (const row of page) {
        if (options.filter) {
          const checkpoint = decodeCheckpoint(this.#serde, row, { threadId, namespace: ns, checkpointId: row.id });
          if (!matchesFilter(checkpoint, options.filter)) continue;
        }
        const tuple = await this.#tupleOrVanished(threadId, ns, row);
        if (!tuple) continue;
        yield tuple;
        if (--remaining <= 0) return;
      }
      if (page.length < LIST_PAGE) return;
      before = page[page.length - 1]?.id ?? null;
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.setup();
    await this.#db.query(this.#sql.deleteThread, [threadId]);
  }

  async prune(threadId: string, options: { keepLast: number }): Promise<void> {
    const keep = Math.max(1, Math.floor(options.keepLast));
    await this.setup();
    await this.#db.transaction(async (query) => {
      if (!(await this.#openThread(query, threadId, this.#clock.now(), false))) return;
      await query(this.#sql.pruneCheckpoints, [threadId, keep]);
      const needed = new Set<string>();
      const bases = new Map<string, string | null>();
      const links = await query<{ ns: string; channel: string; version: string; base: string | null }>(
        this.#sql.blobLinks,
        [threadId],
      );
      for (const b of links) bases.set(key(b.ns, b.channel, b.version), b.base);
      for (const row of await query<CheckpointRowData & { ns: string }>(this.#sql.checkpointBodies, [threadId])) {
        const where = { threadId, namespace: row.ns, checkpointId: row.id };
        const checkpoint = decodeCheckpoint(this.#serde, row, where);
        for (const [channel, version] of Object.entries(checkpoint.channelVersions)) {
          let at: string | null | undefined = version;
          while (at != null && !needed.has(key(row.ns, channel, at))) {
            needed.add(key(row.ns, channel, at));
            at = bases.get(key(row.ns, channel, at));
          }
        }
      }
      const drop = links.filter((b) => !needed.has(key(b.ns, b.channel, b.version)));
      if (drop.length > 0) {
        await query(this.#sql.deleteBlobs, [
          threadId,
          drop.map((b) => b.ns),
          drop.map((b) => b.channel),
          drop.map((b) => b.version),
        ]);
      }
      await query(this.#sql.pruneBodies, [threadId]);
    });
  }

  async setTtl(threadId: string, ttlMs: number | null): Promise<void> {
    await this.setup();
    await this.#db.transaction(async (query) => {
      const now = this.#clock.now();
      if (!(await this.#openThread(query, threadId, now, false))) return;
      await query(this.#sql.setTtl, [threadId, ttlMs, now]);
    });
  }

  async sweepExpired(): Promise<number> {
    await this.setup();
    const [row] = await this.#db.query<{ n: number }>(this.#sql.sweep, [this.#clock.now()]);
    return row?.n ?? 0;
  }

  async acquireLease(threadId: string, owner: string, ttlMs: number): Promise<Lease> {
    await this.setup();
    return this.#db.transaction((query) => this.#takeLease(query, threadId, owner, ttlMs));
  }

  /** The lease rule inside the caller's transaction. */
  async #takeLease(query: Query, threadId: string, owner: string, ttlMs: number): Promise<Lease> {
    const now = this.#clock.now();
    const thread = await this.#openThread(query, threadId, now, true);
    const lease = nextLease(leaseOf(threadId, thread), {
      threadId,
      owner,
      ttlMs,
      now,
      isHolderDead: this.#isHolderDead,
    });
    await query(this.#sql.setLease, [threadId, lease.owner, lease.epoch, lease.expiresAt]);
    return lease;
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    await this.setup();
    return this.#db.transaction(async (query) => {
      const now = this.#clock.now();
      const thread = await this.#openThread(query, lease.threadId, now, false);
      assertLeaseCurrent(thread ? leaseOf(lease.threadId, thread) : undefined, lease, now);
      const renewed = { ...lease, expiresAt: now + ttlMs };
      await query(this.#sql.setLease, [lease.threadId, renewed.owner, renewed.epoch, renewed.expiresAt]);
      return renewed;
    });
  }

  async releaseLease(lease: Lease): Promise<void> {
    await this.setup();
    await this.#db.query(this.#sql.releaseLease, [lease.threadId, lease.owner, lease.epoch]);
  }

  /**
   * Bytes of serialized checkpoints, values and writes stored for the thread (the same measure as
   * MemorySaver's; Postgres adds row headers and indexes, and compresses large values).
   *
   * @example
   * console.log(await saver.storedBytes("t1"));
   */
  async storedBytes(threadId: string): Promise<number> {
    await this.setup();
    const [row] = await this.#db.query<ThreadRow & { bytes: string }>(this.#sql.storedBytes, [threadId]);
    if (!row) return 0;
    if (expired(row, this.#clock.now())) {
      await this.#purgeIfExpired(threadId);
      return 0;
    }
    return Number(row.bytes);
  }

  async close(): Promise<void> {
    if (this.#ownsPool && !this.#pool.ended) await this.#pool.end();
  }

  /** The tuple of a checkpoint row, or undefined when its values vanished (pruned since it was read). */
  async #tupleOrVanished(
    threadId: string,
    ns: string,
    row: CheckpointRowData,
    query: Query = (sql, params) => this.#db.query(sql, params),
  ): Promise<CheckpointTuple | undefined> {
    const where = { threadId, namespace: ns, checkpointId: row.id };
    const checkpoint: Checkpoint = decodeCheckpoint(this.#serde, row, where);
    const rows = await query<{
      tag: "b" | "w";
      k1: string;
      k2: string;
      kind: "full" | "delta" | null;
      base: string | null;
      body: string | null;
      sum: string;
    }>(this.#sql.valuesAndWrites, [threadId, ns, row.id, JSON.stringify(checkpoint.channelVersions)]);
    const chains = new Map<string, { version: string; blob: StoredBlob }[]>();
    const pendingWrites: PendingWrite[] = [];
    for (const r of rows) {
      if (r.tag === "w") {
        pendingWrites.push(decodeWrite(this.#serde, { taskId: r.k1, channel: r.k2, body: r.body, sum: r.sum }, where));
        continue;
      }
      const blobRow = { channel: r.k1, version: r.k2, kind: r.kind ?? "full", base: r.base, body: r.body, sum: r.sum };
      let chain = chains.get(r.k1);
      if (!chain) {
        chain = [];
        chains.set(r.k1, chain);
      }
      chain.push({ version: r.k2, blob: decodeBlob(this.#serde, blobRow, where) });
    }
    try {
      return { checkpoint, values: rebuildValues(checkpoint, chains, where), pendingWrites };
    } catch (error) {
      if (!(error instanceof CorruptCheckpointError)) throw error;
      const still = await query(this.#sql.checkpointExists, [threadId, ns, row.id]);
      if (still.length === 0) return undefined;
      throw error;
    }
  }

  /** The thread's row, locked for the transaction, after resetting or deleting it if its TTL ran out. */
  async #openThread(query: Query, threadId: string, now: number, create: true): Promise<ThreadRow>;
  async #openThread(query: Query, threadId: string, now: number, create: boolean): Promise<ThreadRow | undefined>;
  async #openThread(query: Query, threadId: string, now: number, create: boolean): Promise<ThreadRow | undefined> {
    const [thread] = await query<ThreadRow>(create ? this.#sql.lockOrCreateThread : this.#sql.lockThread, [
      threadId,
      ...(create ? [now] : []),
    ]);
    if (!thread || !expired(thread, now)) return thread;
    if (create) {
      await query(this.#sql.resetThread, [threadId, now]);
      return { ttl_ms: null, touched_at: String(now), lease_owner: null, lease_epoch: "0", lease_expires_at: "0" };
    }
    await query(this.#sql.deleteThread, [threadId]);
    return undefined;
  }

  async #purgeIfExpired(threadId: string): Promise<void> {
    await this.#db.query(this.#sql.deleteIfExpired, [threadId, this.#clock.now()]);
  }
}

interface EncodedPut {
  checkpoint: Checkpoint;
  row: { body: string; sum: string };
  blobs: ReturnType<typeof encodeBlobs>;
  writes: WriteRow[];
}

/** The parameters of the `put` statement. */
function putParams({ checkpoint, row, blobs, writes }: EncodedPut, now: number): unknown[] {
  const shared = sharedBodies([...blobs, ...writes]);
  return [
    checkpoint.threadId,
    checkpoint.namespace,
    checkpoint.id,
    row.body,
    row.sum,
    blobs.map((b) => b.channel),
    blobs.map((b) => b.version),
    blobs.map((b) => b.kind),
    blobs.map((b) => b.base),
    blobs.map(inlineBody),
    blobs.map((b) => b.sum),
    blobs.map((b) => b.ref),
    writes.map((w) => w.taskId),
    writes.map((w) => w.channel),
    writes.map(inlineBody),
    writes.map((w) => w.sum),
    writes.map((w) => w.ref),
    now,
    shared.refs,
    shared.bodies,
  ];
}

/** What a row keeps in its own `body`: the text, or '' when the text is shared (stored in `bodies`). */
function inlineBody(row: { body: string; ref: string | null }): string {
  return row.ref === null ? row.body : "";
}

/** The long bodies of a request, each content key once, for the `bodies` table. */
function sharedBodies(rows: readonly { body: string; ref: string | null }[]): { refs: string[]; bodies: string[] } {
  const byRef = new Map<string, string>();
  for (const row of rows) if (row.ref !== null) byRef.set(row.ref, row.body);
  return { refs: [...byRef.keys()], bodies: [...byRef.values()] };
}

function key(ns: string, channel: string, version: string): string {
  return `${ns}\u0000${channel}\u0000${version}`;
}
