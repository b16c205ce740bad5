import {
  assertLeaseCurrent,
  type BlobRow,
  BodyEncoder,
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
  type RowLocation,
  rebuildValues,
  type Serializer,
  type StoredBlob,
  systemClock,
  type WriteRow,
  writesTargetMissing,
} from "@trellis/checkpoint";
import { Redis, type RedisOptions } from "ioredis";
import { SCRIPTS } from "./redis-scripts.js";

/**
 * Options of {@link RedisSaver}. Give a `client`, or what to connect with.
 *
 * @example
 * new RedisSaver({ url: "redis://127.0.0.1:6379/2", keyPrefix: "support-bot:" });
 */
export interface RedisSaverOptions {
  /** A connected ioredis client to use; the saver will not close it. */
  client?: Redis;
  /** e.g. `redis://127.0.0.1:6379/0`, used when no `client` is given. */
  url?: string;
  /** More ioredis settings for the client the saver makes. */
  redisOptions?: RedisOptions;
  /** Prefix of every key the saver writes. Default `trellis:`. */
  keyPrefix?: string;
  serializer?: Serializer;
  clock?: Clock;
  /**
   * Decides whether a lease's holder is provably dead, so its lease is free before it expires. Default
   * `isLocalHolderDead`: a process of this host whose pid is gone or was reused; never one of another host.
   */
  isHolderDead?: HolderCheck;
}

const LIST_PAGE = 100;
const SUM_LENGTH = 16;

/**
 * A checkpoint saver on Redis 6+ (`ioredis`), with plain commands only (no RedisJSON, no RediSearch),
 * so managed Redis services work. Each put is one Lua script that checks the lease and writes the
 * checkpoint, its values and writes atomically. A thread's TTL is native: every key of the thread
 * gets `PEXPIRE`, refreshed on each put, so `sweepExpired` has nothing to do. All of a thread's keys
 * share one hash tag. Values live in memory: size Redis for them, and turn on AOF if checkpoints must
 * survive a Redis restart.
 *
 * @example
 * import { RedisSaver } from "@trellis/checkpoint-redis";
 *
 * const saver = new RedisSaver({ url: "redis://127.0.0.1:6379", keyPrefix: "myapp:" });
 * const graph = builder.compile({ checkpointer: saver });
 */
export class RedisSaver implements CheckpointSaver {
  readonly #redis: Redis;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #serde: Serializer;
  readonly #clock: Clock;
  readonly #isHolderDead: HolderCheck;

  constructor(options: RedisSaverOptions = {}) {
    this.#prefix = options.keyPrefix ?? "trellis:";
    this.#serde = options.serializer ?? jsonSerializer;
    this.#clock = options.clock ?? systemClock;
    this.#isHolderDead = options.isHolderDead ?? isLocalHolderDead;
    this.#ownsClient = !options.client;
    // The scripts' replies are read in the classic (RESP2) shape.
    const settings = { ...options.redisOptions, replyMapping: "legacy" as const };
    this.#redis =
      options.client ?? (options.url === undefined ? new Redis(settings) : new Redis(options.url, settings));
  }

  /** The ioredis client, for health checks and tests. */
  get client(): Redis {
    return this.#redis;
  }

  /** The key every stored item of `threadId` starts with (`<prefix>{<threadId>}`). */
  threadKey(threadId: string): string {
    return `${this.#prefix}{${threadId}}`;
  }

  async get(ref: CheckpointRef): Promise<CheckpointTuple | undefined> {
    const ns = ref.namespace ?? "";
    for (let attempt = 0; attempt < 3; attempt++) {
      const head = (await this.#run("head", ref.threadId, [this.#now(), ns, ref.checkpointId ?? ""])) as string[];
      const [id, value] = head;
      if (id === undefined || value === undefined) return undefined;
      const tuple = await this.#tuple(ref.threadId, ns, id, value);
      if (tuple) return tuple;
      // Pruned or deleted between the two reads: read the head again.
    }
    return undefined;
  }

  async put(request: PutRequest): Promise<void> {
    const { checkpoint } = request;
    const row = encodeCheckpoint(this.#serde, checkpoint);
    const bodies = new BodyEncoder(this.#serde);
    const blobs = encodeBlobs(this.#serde, request.blobs, bodies);
    const writes = encodeWrites(this.#serde, request.writes ?? [], bodies);
    const ns = checkpoint.namespace;
    const now = this.#clock.now();
    const args: (string | number)[] = [String(now), ns, checkpoint.id, row.sum + row.body, ...leaseArgs(request.lease)];
    args.push(blobs.length);
    for (const b of blobs) args.push(blobField(ns, b.channel, b.version), blobValue(b));
    args.push(writes.length, ...writeArgs(writes), ...bodyArgs([...blobs, ...writes]));
    const result = (await this.#run("put", checkpoint.threadId, args)) as string[];
    if (result[0] === "LEASE_LOST") this.#leaseLost(result, request.lease as Lease, now);
  }

  async putWrites(ref: CheckpointRef & { checkpointId: string }, writes: PendingWrite[], lease?: Lease): Promise<void> {
    const rows = encodeWrites(this.#serde, writes, new BodyEncoder(this.#serde));
    const now = this.#clock.now();
    const args = [String(now), ref.namespace ?? "", ref.checkpointId, ...leaseArgs(lease), rows.length];
    const result = (await this.#run("putWrites", ref.threadId, [
      ...args,
      ...writeArgs(rows),
      ...bodyArgs(rows),
    ])) as string[];
    if (result[0] === "LEASE_LOST") this.#leaseLost(result, lease as Lease, now);
    if (result[0] === "NOT_FOUND") {
      throw writesTargetMissing(ref);
    }
  }

  /**
   * The lease (the rule applied here, then a compare-and-set) and the read of the checkpoint in one
   * script; its values follow in a second read, as `get` reads them.
   */
  async acquireLeaseAndGet(ref: CheckpointRef, owner: string, ttlMs: number): Promise<LeasedTuple> {
    const { threadId } = ref;
    const ns = ref.namespace ?? "";
    for (;;) {
      const { now, fields, lease, next } = await this.#proposeLease(threadId, owner, ttlMs);
      const args = [String(now), ...fields, ...next, ns, ref.checkpointId ?? ""];
      const out = (await this.#run("casLeaseHead", threadId, args)) as (string | number)[];
      // Another writer changed the lease between the read and the write: apply the rule again.
      if (out[0] === 0) continue;
      const [, id, value] = out;
      if (id === undefined || value === undefined) return { lease, tuple: undefined };
      // Pruned between the two reads (the lease holder's own prune only): read as get does.
      const tuple = (await this.#tuple(threadId, ns, String(id), String(value))) ?? (await this.get(ref));
      return { lease, tuple };
    }
  }

  async commit(request: CommitRequest): Promise<void> {
    const threadId = commitThread(request);
    const { lease, put } = request;
    const bodies = new BodyEncoder(this.#serde);
    const writes = request.writes && encodeWrites(this.#serde, request.writes.writes, bodies);
    const shared: { body: string; ref: string | null }[] = [...(writes ?? [])];
    const now = this.#clock.now();
    const args: (string | number)[] = [String(now), ...leaseArgs(lease), request.release ? "1" : "0"];
    const target = request.writes?.ref;
    args.push(target?.namespace ?? "", target?.checkpointId ?? "", writes?.length ?? 0, ...writeArgs(writes ?? []));
    if (put) {
      const { checkpoint } = put;
      const row = encodeCheckpoint(this.#serde, checkpoint);
      const blobs = encodeBlobs(this.#serde, put.blobs, bodies);
      const putWrites = encodeWrites(this.#serde, put.writes ?? [], bodies);
      args.push("1", checkpoint.namespace, checkpoint.id, row.sum + row.body, blobs.length);
      for (const b of blobs) args.push(blobField(checkpoint.namespace, b.channel, b.version), blobValue(b));
      args.push(putWrites.length, ...writeArgs(putWrites));
      shared.push(...blobs, ...putWrites);
    } else {
      args.push("0", "", "", "", 0, 0);
    }
    args.push(...bodyArgs(shared));
    const result = (await this.#run("commit", threadId, args)) as string[];
    if (result[0] === "LEASE_LOST") this.#leaseLost(result, lease as Lease, now);
    if (result[0] === "NOT_FOUND" && target) {
      throw writesTargetMissing({ ...target, threadId });
    }
  }

  async *list(threadId: string, options: ListOptions = {}): AsyncIterable<CheckpointTuple> {
    const ns = options.namespace ?? "";
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    let before = options.before ?? "";
    while (remaining > 0) {
      const page = (await this.#run("page", threadId, [this.#now(), ns, before, LIST_PAGE])) as (string | number)[];
      if (page[0] === 0) return;
      const count = (page.length - 1) / 2;
      for (let i = 0; i < count; i++) {
        const id = String(page[1 + i * 2]);
        const value = String(page[2 + i * 2]);
        if (options.filter) {
          const where = { threadId, namespace: ns, checkpointId: id };
          if (!matchesFilter(decodeCheckpoint(this.#serde, splitSum(value), where), options.filter)) continue;
        }
        const tuple = await this.#tuple(threadId, ns, id, value);
        if (!tuple) continue;
        yield tuple;
        if (--remaining <= 0) return;
      }
      if (count < LIST_PAGE) return;
      before = String(page[page.length - 2]);
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.#run("deleteThread", threadId, []);
  }

  /**
   * Two scripts: the first drops old checkpoints and returns what is left, the second drops the values
   * nothing left needs (decided here, since reading checkpoints needs the serializer). A put between
   * the two is safe: a new checkpoint only needs values its parent, a kept checkpoint, already needs.
   */
  async prune(threadId: string, options: { keepLast: number }): Promise<void> {
    const keep = Math.max(1, Math.floor(options.keepLast));
    const out = (await this.#run("pruneCheckpoints", threadId, [this.#now(), keep])) as (string | number)[];
    if (out[0] === 0) return;
    const kept = Number(out[1]);
    const needed = new Set<string>();
    const bases = new Map<string, string>();
    for (let i = 2 + kept * 2; i < out.length; i += 2) bases.set(String(out[i]), String(out[i + 1]));
    for (let i = 0; i < kept; i++) {
      const ns = String(out[2 + i * 2]);
      const checkpoint = decodeCheckpoint(this.#serde, splitSum(String(out[3 + i * 2])), { threadId, namespace: ns });
      for (const [channel, version] of Object.entries(checkpoint.channelVersions)) {
        let field: string | undefined = blobField(ns, channel, version);
        while (field !== undefined && !needed.has(field)) {
          needed.add(field);
          const base = bases.get(field);
          field = base ? blobField(ns, channel, base) : undefined;
        }
      }
    }
    const drop = [...bases.keys()].filter((field) => !needed.has(field));
    for (let i = 0; i < drop.length; i += 1_000) {
      await this.#run("deleteBlobs", threadId, drop.slice(i, i + 1_000));
    }
    await this.#run("pruneBodies", threadId, []);
  }

  async setTtl(threadId: string, ttlMs: number | null): Promise<void> {
    await this.#run("setTtl", threadId, [this.#now(), ttlMs === null ? "" : String(Math.max(0, Math.ceil(ttlMs)))]);
  }

  /** Redis expires threads itself (every key of a thread carries the thread's TTL), so this returns 0. */
  async sweepExpired(): Promise<number> {
    return 0;
  }

  /**
   * The lease `owner` would get now (`nextLease` over the stored one), with what a compare-and-set
   * needs: the time, the stored fields it read and the new ones.
   */
  async #proposeLease(threadId: string, owner: string, ttlMs: number) {
    const now = this.#clock.now();
    const fields = (await this.#run("readLease", threadId, [String(now)])) as [string, string, string];
    const lease = nextLease(parseLease(threadId, fields), {
      threadId,
      owner,
      ttlMs,
      now,
      isHolderDead: this.#isHolderDead,
    });
    const next = [lease.owner, String(lease.epoch), String(lease.expiresAt)];
    return { now, fields, lease, next };
  }

  async acquireLease(threadId: string, owner: string, ttlMs: number): Promise<Lease> {
    for (;;) {
      const { now, fields, lease, next } = await this.#proposeLease(threadId, owner, ttlMs);
      if ((await this.#run("casLease", threadId, [String(now), ...fields, ...next])) === 1) return lease;
      // Another writer changed the lease between the read and the write: apply the rule again.
    }
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    const now = this.#clock.now();
    const renewed = { ...lease, expiresAt: now + ttlMs };
    const args = [String(now), lease.owner, String(lease.epoch), String(renewed.expiresAt)];
    const result = (await this.#run("renewLease", lease.threadId, args)) as string[];
    if (result[0] === "LEASE_LOST") this.#leaseLost(result, lease, now);
    return renewed;
  }

  async releaseLease(lease: Lease): Promise<void> {
    await this.#run("releaseLease", lease.threadId, [this.#now(), lease.owner, String(lease.epoch)]);
  }

  /**
   * Bytes of serialized checkpoints, values and writes stored for the thread (the same measure as
   * MemorySaver's; Redis adds keys and per-entry overhead, see `MEMORY USAGE`).
   *
   * @example
   * console.log(await saver.storedBytes("t1"));
   */
  async storedBytes(threadId: string): Promise<number> {
    return Number(await this.#run("storedBytes", threadId, [this.#now()]));
  }

  async close(): Promise<void> {
    if (!this.#ownsClient || this.#redis.status === "end") return;
    // A connection reset just before (the client has not noticed yet) makes QUIT fail: nothing is left
    // to say goodbye to, so drop the socket instead of failing the shutdown.
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  /** Fetches values and writes of a checkpoint read earlier; undefined if it has vanished since. */
  async #tuple(threadId: string, ns: string, id: string, value: string): Promise<CheckpointTuple | undefined> {
    const where = { threadId, namespace: ns, checkpointId: id };
    const checkpoint = decodeCheckpoint(this.#serde, splitSum(value), where);
    const args = [ns, id, ...Object.entries(checkpoint.channelVersions).flat()];
    const out = (await this.#run("values", threadId, args)) as (string | number | null)[];
    if (out[0] === 0) return undefined;
    const links = Number(out[2]);
    const end = 3 + links * 3;
    const shared = new Map<string, string | null>();
    for (let i = end; i < out.length; i += 2)
      shared.set(String(out[i]), out[i + 1] == null ? null : String(out[i + 1]));
    const chains = new Map<string, { version: string; blob: StoredBlob }[]>();
    for (let i = 3; i < end; i += 3) {
      const channel = String(out[i]);
      const version = String(out[i + 1]);
      const row = parseBlobValue(channel, version, String(out[i + 2]), where);
      const blob = decodeBlob(
        this.#serde,
        { ...row, body: row.ref === null ? row.body : (shared.get(row.ref) ?? null) },
        where,
      );
      let chain = chains.get(channel);
      if (!chain) {
        chain = [];
        chains.set(channel, chain);
      }
      chain.push({ version, blob });
    }
    const values = rebuildValues(checkpoint, chains, where);
    return { checkpoint, values, pendingWrites: parseWrites(this.#serde, String(out[1]), shared, where) };
  }

  #leaseLost(result: string[], presented: Lease, now: number): never {
    const current = parseLease(presented.threadId, [result[1] ?? "", result[2] ?? "", result[3] ?? ""]);
    assertLeaseCurrent(current, presented, now);
    // The script found the lease lost, so it is, whatever the fields it returned look like.
    assertLeaseCurrent(undefined, presented, now);
    throw new Error("unreachable");
  }

  #now(): string {
    return String(this.#clock.now());
  }

  #run(script: keyof typeof SCRIPTS, threadId: string, args: (string | number)[]) {
    return SCRIPTS[script].run(this.#redis, this.threadKey(threadId), args);
  }
}

function leaseArgs(lease: Lease | undefined): string[] {
  return lease ? ["1", lease.owner, String(lease.epoch)] : ["0", "", ""];
}

/** Five arguments per write: task, channel, sum, body ('' when shared) and content key ('' when inline). */
function writeArgs(rows: WriteRow[]): string[] {
  return rows.flatMap((w) => [w.taskId, w.channel, w.sum, w.ref === null ? w.body : "", w.ref ?? ""]);
}

/** The long bodies of a request, each content key once: their count, then (content key, body) pairs. */
function bodyArgs(rows: readonly { body: string; ref: string | null }[]): (string | number)[] {
  const byRef = new Map<string, string>();
  for (const row of rows) if (row.ref !== null) byRef.set(row.ref, row.body);
  return [byRef.size, ...[...byRef].flat()];
}

function blobField(ns: string, channel: string, version: string): string {
  return `${ns}\u0000${channel}\u0000${version}`;
}

/** A shared body is stored once in the thread's `:v` hash: the kind letter is upper case, the body its key. */
function blobValue(b: BlobRow): string {
  const kind = b.kind === "full" ? "f" : "d";
  return b.ref === null
    ? `${b.sum}${kind}${b.base ?? ""}\u0000${b.body}`
    : `${b.sum}${kind.toUpperCase()}${b.base ?? ""}\u0000${b.ref}`;
}

/** A stored blob value; `body` is the content key when `ref` is set. */
function parseBlobValue(channel: string, version: string, value: string, where: RowLocation): BlobRow {
  const letter = value[SUM_LENGTH] ?? "";
  const kind = letter.toLowerCase();
  const nul = value.indexOf("\u0000", SUM_LENGTH + 1);
  if ((kind !== "f" && kind !== "d") || nul < 0) {
    throw new CorruptCheckpointError(
      `Thread "${where.threadId}": a stored channel value is corrupt (its header is malformed). Restore the thread from a backup, or delete it.`,
      { ...where, channel, version },
    );
  }
  const base = value.slice(SUM_LENGTH + 1, nul);
  return {
    channel,
    version,
    kind: kind === "f" ? "full" : "delta",
    base: kind === "f" ? null : base,
    body: value.slice(nul + 1),
    sum: value.slice(0, SUM_LENGTH),
    ref: letter === kind ? null : value.slice(nul + 1),
  };
}

function splitSum(value: string): { body: string; sum: string } {
  return { sum: value.slice(0, SUM_LENGTH), body: value.slice(SUM_LENGTH) };
}

function parseWrites(
  serde: Serializer,
  text: string,
  shared: ReadonlyMap<string, string | null>,
  where: RowLocation,
): PendingWrite[] {
  if (text === "") return [];
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch (cause) {
    throw new CorruptCheckpointError(
      `Thread "${where.threadId}": the stored pending writes are corrupt (not valid JSON). Restore the thread from a backup, or delete it.`,
      { ...where },
      cause,
    );
  }
  if (!Array.isArray(list)) return [];
  return list.map((entry) => {
    const [taskId, channel, sum, body, ref] = (Array.isArray(entry) ? entry : []).map(String);
    const text = ref === undefined ? (body ?? "") : (shared.get(ref) ?? null);
    return decodeWrite(serde, { taskId: taskId ?? "", channel: channel ?? "", sum: sum ?? "", body: text }, where);
  });
}

function parseLease(threadId: string, [owner, epoch, expiresAt]: [string, string, string]): Lease | undefined {
  if (owner === "" && epoch === "") return undefined;
  return { threadId, owner, epoch: Number(epoch), expiresAt: Number(expiresAt) };
}
