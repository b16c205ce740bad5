import {
  assertLeaseCurrent,
  type BlobRow,
  BodyEncoder,
  type Checkpoint,
  type CheckpointRef,
  type CheckpointSaver,
  type CheckpointTuple,
  type Clock,
  type CommitRequest,
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
  TrellisError,
  type WriteRow,
  writesTargetMissing,
} from "@trellis/checkpoint";
import BetterSqlite3, { type Database, type Statement } from "better-sqlite3";
import { migrateSqlite } from "./sqlite-migrations.js";
import type { SqliteSaverOptions } from "./sqlite-saver-options.js";
import { SQL } from "./sqlite-sql.js";
import { expired, leaseOf, type ThreadRow } from "./sqlite-thread-row.js";

export type { SqliteSaverOptions } from "./sqlite-saver-options.js";

interface EncodedPut {
  checkpoint: Checkpoint;
  row: { body: string; sum: string };
  blobs: ReturnType<typeof encodeBlobs>;
  writes: WriteRow[];
}

interface CheckpointRowData {
  id: string;
  body: string;
  sum: string;
}

const LIST_PAGE = 100;

/**
 * A checkpoint saver on one SQLite file (better-sqlite3): WAL journal, `synchronous=FULL` by default,
 * one `BEGIN IMMEDIATE` transaction per put, numbered migrations, checksummed rows, delta chains read
 * back in one recursive query. Several processes may open the same file. The default saver wherever a
 * user does not choose one.
 *
 * @example
 * import { SqliteSaver } from "@trellis/checkpoint-sqlite";
 *
 * const saver = new SqliteSaver({ filename: "./trellis.db" });
 * const graph = builder.compile({ checkpointer: saver });
 * await graph.invoke({ topic: "tides" }, { threadId: "t1" });
 * await saver.close();
 */
export class SqliteSaver implements CheckpointSaver {
  readonly #db: Database;
  readonly #ownsDb: boolean;
  readonly #serde: Serializer;
  readonly #clock: Clock;
  readonly #isHolderDead: HolderCheck;
  readonly #statements = new Map<string, Statement>();
  readonly #tx: BetterSqlite3.Transaction<(fn: () => unknown) => unknown>;
  readonly #fullSync: boolean;
  /** The schema version of the file after opening. */
  readonly schemaVersion: number;

  constructor(options: SqliteSaverOptions = {}) {
    this.#serde = options.serializer ?? jsonSerializer;
    this.#clock = options.clock ?? systemClock;
    this.#isHolderDead = options.isHolderDead ?? isLocalHolderDead;
    if (options.database) {
      this.#db = options.database;
      this.#ownsDb = false;
    } else {
      if (options.filename === undefined) {
        throw new TrellisError("INVALID_CONFIG", 'SqliteSaver needs a `filename` (or ":memory:") or a `database`.');
      }
      this.#db = new BetterSqlite3(options.filename, { timeout: options.busyTimeoutMs ?? 5_000 });
      this.#ownsDb = true;
    }
    this.#db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
    this.#db.pragma("journal_mode = WAL");
    this.#fullSync = options.synchronous !== "NORMAL";
    this.#db.pragma(`synchronous = ${this.#fullSync ? "FULL" : "NORMAL"}`);
    this.schemaVersion = migrateSqlite(this.#db, { now: this.#clock.now() });
    this.#tx = this.#db.transaction((fn: () => unknown) => fn());
  }

  /** The underlying database, for backups (`saver.database.backup(path)`) and inspection. */
  get database(): Database {
    return this.#db;
  }

  async get(ref: CheckpointRef): Promise<CheckpointTuple | undefined> {
    const result = this.#read(() => {
      const state = this.#threadState(ref.threadId);
      return state === "live" ? this.#head(ref) : state;
    });
    if (result === "expired") this.#purgeIfExpired(ref.threadId);
    return typeof result === "object" ? result : undefined;
  }

  /** A `quick` put (a run's input, see `PutRequest.quick`) commits without a disk sync, like a lease write. */
  async put(request: PutRequest): Promise<void> {
    const put = this.#encodePut(request);
    const store = () => {
      const now = this.#clock.now();
      const thread = this.#openThread(request.checkpoint.threadId, now, true);
      if (request.lease) assertLeaseCurrent(leaseOf(request.checkpoint.threadId, thread), request.lease, now);
      this.#storePut(put);
      this.#touch(request.checkpoint.threadId, thread, now);
    };
    if (request.quick) this.#quickWrite(store);
    else this.#write(store);
  }

  async putWrites(ref: CheckpointRef & { checkpointId: string }, writes: PendingWrite[], lease?: Lease): Promise<void> {
    const rows = encodeWrites(this.#serde, writes, new BodyEncoder(this.#serde));
    this.#write(() => {
      const now = this.#clock.now();
      const thread = this.#openThread(ref.threadId, now, false);
      if (lease) assertLeaseCurrent(thread ? leaseOf(ref.threadId, thread) : undefined, lease, now);
      if (!thread) throw writesTargetMissing(ref);
      this.#storeWrites(ref, rows, undefined);
      this.#touch(ref.threadId, thread, now);
    });
  }

  /** The lease and the read in one transaction, which commits without a disk sync like any lease write. */
  async acquireLeaseAndGet(ref: CheckpointRef, owner: string, ttlMs: number): Promise<LeasedTuple> {
    return this.#quickWrite(() => {
      const lease = this.#takeLease(ref.threadId, owner, ttlMs);
      return { lease, tuple: this.#head(ref) };
    });
  }

  async commit(request: CommitRequest): Promise<void> {
    const threadId = commitThread(request);
    // Serialize before the transaction: a value that cannot be stored leaves the file unchanged.
    const bodies = new BodyEncoder(this.#serde);
    const put = request.put && this.#encodePut(request.put, bodies);
    const writes = request.writes && encodeWrites(this.#serde, request.writes.writes, bodies);
    const commit = () => {
      const now = this.#clock.now();
      const thread = this.#openThread(threadId, now, put !== undefined);
      if (request.lease) assertLeaseCurrent(thread ? leaseOf(threadId, thread) : undefined, request.lease, now);
      if (request.writes && writes) {
        if (!thread) throw writesTargetMissing(request.writes.ref);
        this.#storeWrites(request.writes.ref, writes, request.put?.checkpoint);
      }
      if (put) this.#storePut(put);
      if (request.lease && request.release) {
        this.#stmt(SQL.releaseLease).run(threadId, request.lease.owner, request.lease.epoch);
      }
      if (thread && (put || writes)) this.#touch(threadId, thread, now);
    };
    // Only a lease to give back: a lease write, without a disk sync.
    if (put || writes) this.#write(commit);
    else this.#quickWrite(commit);
  }

  /** The checkpoint `ref` names (or the latest), read inside the caller's transaction. */
  #head(ref: CheckpointRef): CheckpointTuple | undefined {
    const namespace = ref.namespace ?? "";
    const row = (
      ref.checkpointId === undefined
        ? this.#stmt(SQL.latestCheckpoint).get(ref.threadId, namespace)
        : this.#stmt(SQL.checkpointById).get(ref.threadId, namespace, ref.checkpointId)
    ) as CheckpointRowData | undefined;
    return row ? this.#tuple(ref.threadId, namespace, row) : undefined;
  }

  #encodePut(request: PutRequest, bodies = new BodyEncoder(this.#serde)): EncodedPut {
    return {
      checkpoint: request.checkpoint,
      row: encodeCheckpoint(this.#serde, request.checkpoint),
      blobs: encodeBlobs(this.#serde, request.blobs, bodies),
      writes: encodeWrites(this.#serde, request.writes ?? [], bodies),
    };
  }

  #storePut({ checkpoint, row, blobs, writes }: EncodedPut): void {
    const { threadId, namespace: ns } = checkpoint;
    this.#stmt(SQL.upsertCheckpoint).run(threadId, ns, checkpoint.id, row.body, row.sum);
    const upsertBlob = this.#stmt(SQL.upsertBlob);
    for (const b of blobs) {
      upsertBlob.run(threadId, ns, b.channel, b.version, b.kind, b.base, this.#inlineBody(threadId, b), b.sum, b.ref);
    }
    this.#upsertWrites(threadId, ns, checkpoint.id, writes);
  }

  /**
   * What a row keeps in its own `body`: the text itself, or '' when the text is shared — then it is
   * stored once in `bodies` under its content key (unless the thread holds it already).
   */
  #inlineBody(threadId: string, row: { body: string; ref: string | null }): string {
    if (row.ref === null) return row.body;
    if (!this.#stmt(SQL.bodyExists).get(threadId, row.ref)) {
      this.#stmt(SQL.insertBody).run(threadId, row.ref, row.body);
    }
    return "";
  }

  /** Records writes against a stored checkpoint, or against `putting`, the one the same commit stores. */
  #storeWrites(ref: CheckpointRef & { checkpointId: string }, rows: WriteRow[], putting: Checkpoint | undefined): void {
    const ns = ref.namespace ?? "";
    const byPut = putting?.id === ref.checkpointId && putting.namespace === ns;
    if (!byPut && !this.#stmt(SQL.checkpointExists).get(ref.threadId, ns, ref.checkpointId)) {
      throw writesTargetMissing(ref);
    }
    this.#upsertWrites(ref.threadId, ns, ref.checkpointId, rows);
  }

  async *list(threadId: string, options: ListOptions = {}): AsyncIterable<CheckpointTuple> {
    const ns = options.namespace ?? "";
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    let before = options.before;
    while (remaining > 0) {
      const page = this.#read(() => {
        const state = this.#threadState(threadId);
        if (state !== "live") return state;
        return (
          before === undefined
            ? this.#stmt(SQL.pageNewest).all(threadId, ns, LIST_PAGE)
            : this.#stmt(SQL.pageBefore).all(threadId, ns, before, LIST_PAGE)
        ) as CheckpointRowData[];
      });
      if (!Array.isArray(page)) {
        if (page === "expired") this.#purgeIfExpired(threadId);
        return;
      }
      for (const row of page) {
        if (options.filter) {
          const checkpoint = decodeCheckpoint(this.#serde, row, { threadId, namespace: ns, checkpointId: row.id });
          if (!matchesFilter(checkpoint, options.filter)) continue;
        }
        // Re-read inside one transaction: the checkpoint may have been pruned since the page was read.
        const tuple = this.#read(() => {
          const fresh = this.#stmt(SQL.checkpointById).get(threadId, ns, row.id) as CheckpointRowData | undefined;
          return fresh && this.#tuple(threadId, ns, fresh);
        });
        if (!tuple) continue;
        yield tuple;
        if (--remaining <= 0) return;
      }
      if (page.length < LIST_PAGE) return;
      before = page[page.length - 1]?.id;
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    this.#write(() => this.#deleteThreadRows(threadId));
  }

  async prune(threadId: string, options: { keepLast: number }): Promise<void> {
    const keep = Math.max(1, Math.floor(options.keepLast));
    this.#write(() => {
      if (!this.#openThread(threadId, this.#clock.now(), false)) return;
      const namespaces = this.#stmt(SQL.namespaces).all(threadId) as { ns: string }[];
      for (const { ns } of namespaces) {
        this.#stmt(SQL.pruneCheckpoints).run({ t: threadId, ns, offset: keep - 1 });
        this.#stmt(SQL.pruneWrites).run({ t: threadId, ns });
        const needed = new Set<string>();
        const bases = new Map<string, string | null>();
        for (const b of this.#stmt(SQL.blobLinks).all(threadId, ns) as Pick<
          BlobRow,
          "channel" | "version" | "base"
        >[]) {
          bases.set(`${b.channel}\u0000${b.version}`, b.base);
        }
        for (const row of this.#stmt(SQL.checkpointBodies).all(threadId, ns) as CheckpointRowData[]) {
          const checkpoint = decodeCheckpoint(this.#serde, row, { threadId, namespace: ns, checkpointId: row.id });
          for (const [channel, version] of Object.entries(checkpoint.channelVersions)) {
            let at: string | null | undefined = version;
            while (at != null && !needed.has(`${channel}\u0000${at}`)) {
              needed.add(`${channel}\u0000${at}`);
              at = bases.get(`${channel}\u0000${at}`);
            }
          }
        }
        const drop = this.#stmt(SQL.deleteBlob);
        for (const key of bases.keys()) {
          if (needed.has(key)) continue;
          const [channel, version] = key.split("\u0000") as [string, string];
          drop.run(threadId, ns, channel, version);
        }
      }
      this.#stmt(SQL.pruneBodies).run({ t: threadId });
    });
  }

  async setTtl(threadId: string, ttlMs: number | null): Promise<void> {
    this.#write(() => {
      const now = this.#clock.now();
      if (!this.#openThread(threadId, now, false)) return;
      this.#stmt(SQL.setTtl).run(ttlMs, now, threadId);
    });
  }

  async sweepExpired(): Promise<number> {
    return this.#write(() => {
      const expired = this.#stmt(SQL.expiredThreads).all(this.#clock.now()) as { thread_id: string }[];
      for (const { thread_id } of expired) this.#deleteThreadRows(thread_id);
      return expired.length;
    });
  }

  async acquireLease(threadId: string, owner: string, ttlMs: number): Promise<Lease> {
    return this.#quickWrite(() => this.#takeLease(threadId, owner, ttlMs));
  }

  /** The lease rule inside the caller's write transaction. */
  #takeLease(threadId: string, owner: string, ttlMs: number): Lease {
    const now = this.#clock.now();
    const thread = this.#openThread(threadId, now, true);
    const lease = nextLease(leaseOf(threadId, thread), {
      threadId,
      owner,
      ttlMs,
      now,
      isHolderDead: this.#isHolderDead,
    });
    this.#stmt(SQL.setLease).run(lease.owner, lease.epoch, lease.expiresAt, threadId);
    return lease;
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    return this.#quickWrite(() => {
      const now = this.#clock.now();
      const thread = this.#openThread(lease.threadId, now, false);
      assertLeaseCurrent(thread ? leaseOf(lease.threadId, thread) : undefined, lease, now);
      const renewed = { ...lease, expiresAt: now + ttlMs };
      this.#stmt(SQL.setLease).run(renewed.owner, renewed.epoch, renewed.expiresAt, lease.threadId);
      return renewed;
    });
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.#quickWrite(() => {
      if (!this.#openThread(lease.threadId, this.#clock.now(), false)) return;
      this.#stmt(SQL.releaseLease).run(lease.threadId, lease.owner, lease.epoch);
    });
  }

  /**
   * Bytes of serialized checkpoints, values and writes stored for the thread (the same measure as
   * MemorySaver's; the file adds keys, checksums and page overhead on top).
   *
   * @example
   * console.log(await saver.storedBytes("t1"));
   */
  async storedBytes(threadId: string): Promise<number> {
    const bytes = this.#read(() => {
      const state = this.#threadState(threadId);
      return state === "live" ? (this.#stmt(SQL.storedBytes).get({ t: threadId }) as { bytes: number }).bytes : state;
    });
    if (bytes === "expired") this.#purgeIfExpired(threadId);
    return typeof bytes === "number" ? bytes : 0;
  }

  async close(): Promise<void> {
    this.#statements.clear();
    if (this.#ownsDb && this.#db.open) this.#db.close();
  }

  #tuple(threadId: string, ns: string, row: CheckpointRowData): CheckpointTuple {
    const where = { threadId, namespace: ns, checkpointId: row.id };
    const checkpoint: Checkpoint = decodeCheckpoint(this.#serde, row, where);
    const chains = new Map<string, { version: string; blob: StoredBlob }[]>();
    const links = this.#stmt(SQL.chains).all({
      t: threadId,
      ns,
      versions: JSON.stringify(checkpoint.channelVersions),
    }) as (Omit<BlobRow, "body" | "ref"> & { body: string | null })[];
    for (const link of links) {
      let chain = chains.get(link.channel);
      if (!chain) {
        chain = [];
        chains.set(link.channel, chain);
      }
      chain.push({ version: link.version, blob: decodeBlob(this.#serde, link, where) });
    }
    const values = rebuildValues(checkpoint, chains, where);
    const writes = this.#stmt(SQL.writesOf).all(threadId, ns, row.id) as {
      task_id: string;
      channel: string;
      body: string | null;
      sum: string;
    }[];
    const pendingWrites = writes.map((w) =>
      decodeWrite(this.#serde, { taskId: w.task_id, channel: w.channel, body: w.body, sum: w.sum }, where),
    );
    return { checkpoint, values, pendingWrites };
  }

  #upsertWrites(threadId: string, ns: string, checkpointId: string, rows: WriteRow[]): void {
    if (rows.length === 0) return;
    const { seq } = this.#stmt(SQL.maxSeq).get(threadId, ns, checkpointId) as { seq: number };
    const upsert = this.#stmt(SQL.upsertWrite);
    rows.forEach((w, i) => {
      const body = this.#inlineBody(threadId, w);
      upsert.run(threadId, ns, checkpointId, w.taskId, w.channel, seq + i + 1, body, w.sum, w.ref);
    });
  }

  /** The thread's row inside a write transaction, after deleting the thread if its TTL ran out. */
  #openThread(threadId: string, now: number, create: true): ThreadRow;
  #openThread(threadId: string, now: number, create: boolean): ThreadRow | undefined;
  #openThread(threadId: string, now: number, create: boolean): ThreadRow | undefined {
    let thread = this.#stmt(SQL.thread).get(threadId) as ThreadRow | undefined;
    if (thread && expired(thread, now)) {
      this.#deleteThreadRows(threadId);
      thread = undefined;
    }
    if (!thread && create) {
      this.#stmt(SQL.insertThread).run(threadId, now);
      thread = { ttl_ms: null, touched_at: now, lease_owner: null, lease_epoch: 0, lease_expires_at: 0 };
    }
    return thread;
  }

  /**
   * Restarts the thread's TTL. Only a thread with a TTL reads `touched_at` (`setTtl` sets it afresh),
   * so one without skips the row update: a page less to write per put.
   */
  #touch(threadId: string, thread: ThreadRow, now: number): void {
    if (thread.ttl_ms !== null) this.#stmt(SQL.touchThread).run(now, threadId);
  }

  /** Whether a thread can be read. Reads never delete: an expired thread is purged after, in a write. */
  #threadState(threadId: string): "live" | "missing" | "expired" {
    const thread = this.#stmt(SQL.thread).get(threadId) as ThreadRow | undefined;
    if (!thread) return "missing";
    return expired(thread, this.#clock.now()) ? "expired" : "live";
  }

  #purgeIfExpired(threadId: string): void {
    this.#write(() => {
      this.#openThread(threadId, this.#clock.now(), false);
    });
  }

  #deleteThreadRows(threadId: string): void {
    for (const sql of SQL.deleteThread) this.#stmt(sql).run(threadId);
  }

  #read<T>(fn: () => T): T {
    return this.#tx.deferred(fn) as T;
  }

  #write<T>(fn: () => T): T {
    return this.#tx.immediate(fn) as T;
  }

  /**
   * A commit that does not wait for the disk (`synchronous=NORMAL` for that one commit): the next FULL
   * commit syncs it along (WAL keeps commits in order), and only a power loss could drop it. For lease
   * changes — a power loss also stops every writer the lease fences, so a lost lease frees the thread
   * as its expiry would; this halves the disk syncs of a short run (acquire and release around each
   * run) — and for a run's quick put, whose run follows it with a synced commit before it ends.
   */
  #quickWrite<T>(fn: () => T): T {
    if (!this.#fullSync) return this.#write(fn);
    // `exec`, not `db.pragma()` (which builds a statement object and reads its rows each call), and
    // never a prepared statement: SQLite applies `synchronous` when the statement compiles, not when it runs
    this.#db.exec("PRAGMA synchronous = NORMAL");
    try {
      return this.#write(fn);
    } finally {
      this.#db.exec("PRAGMA synchronous = FULL");
    }
  }

  #stmt(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
