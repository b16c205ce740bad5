import { type Clock, systemClock } from "./clock.js";
import { commitThread } from "./commit.js";
import { rebuildChannelValue, type StoredBlob } from "./delta.js";
import { writesTargetMissing } from "./errors.js";
import { isLocalHolderDead } from "./holder.js";
import { assertLeaseCurrent, type HolderCheck, nextLease } from "./lease.js";
import { LongTexts } from "./long-texts.js";
import { NamespaceStore, type StoredText, type StoredWrite } from "./memory-namespace.js";
import { readRow, rowBytes, type StoredRow, storeRow } from "./memory-rows.js";
import { RequestTexts } from "./request-texts.js";
import type { CheckpointSaver } from "./saver.js";
import { jsonSerializer, type Serializer } from "./serializer.js";
import { SHARED_BODY_MIN_LENGTH } from "./shared-bodies.js";
import type {
  Checkpoint,
  CheckpointRef,
  CheckpointTuple,
  CommitRequest,
  Lease,
  LeasedTuple,
  ListOptions,
  PendingWrite,
  PutRequest,
} from "./types.js";

interface ThreadData {
  namespaces: Map<string, NamespaceStore>;
  /** Long texts the thread's rows hold, each kept once and shared by every row that holds it. */
  bodies: LongTexts;
  lease?: Lease;
  ttlMs?: number;
  /** Last write, for the TTL; kept only while the thread has one (`setTtl` sets it afresh). */
  touchedAt: number;
}

/**
 * Options of {@link MemorySaver}.
 *
 * @example
 * const options: MemorySaverOptions = { clock: new ManualClock(0), serializer: jsonSerializer };
 * const checkpointer = new MemorySaver(options);
 */
export interface MemorySaverOptions {
  serializer?: Serializer;
  clock?: Clock;
  /** Decides whether a lease's holder is provably dead, freeing its lease early. Default {@link isLocalHolderDead}. */
  isHolderDead?: HolderCheck;
}

/**
 * A checkpoint saver that keeps everything in this process's memory. Values and writes are serialized
 * on the way in, exactly as a database saver would, so what you read back is a copy and `storedBytes` is
 * honest; each checkpoint row is kept as the saver's own copy and serialized only to count its bytes.
 * For tests and short-lived processes; use the SQLite saver to survive a restart.
 *
 * @example
 * const graph = builder.compile({ checkpointer: new MemorySaver() });
 * await graph.invoke({ topic: "x" }, { threadId: "t1" });
 */
export class MemorySaver implements CheckpointSaver {
  readonly #threads = new Map<string, ThreadData>();
  readonly #serde: Serializer;
  readonly #clock: Clock;
  readonly #isHolderDead: HolderCheck;

  constructor(options: MemorySaverOptions = {}) {
    this.#serde = options.serializer ?? jsonSerializer;
    this.#clock = options.clock ?? systemClock;
    this.#isHolderDead = options.isHolderDead ?? isLocalHolderDead;
  }

  async get(ref: CheckpointRef): Promise<CheckpointTuple | undefined> {
    return this.#get(ref);
  }

  #get(ref: CheckpointRef): CheckpointTuple | undefined {
    const ns = this.#namespace(ref.threadId, ref.namespace ?? "", false);
    if (!ns) return undefined;
    const entry = ref.checkpointId === undefined ? ns.rows[ns.rows.length - 1] : ns.get(ref.checkpointId);
    return entry === undefined ? undefined : this.#tuple(ref.threadId, ns, entry.row);
  }

  async put(request: PutRequest): Promise<void> {
    this.putNow(request);
  }

  /**
   * `put`, done before it returns: the runtime stores a superstep's checkpoint through it without
   * awaiting anything (see {@link CheckpointSaver.putNow}).
   *
   * @example
   * saver.putNow({ checkpoint, blobs, lease });
   */
  putNow(request: PutRequest): void {
    const thread = this.#thread(request.checkpoint.threadId, true);
    if (request.lease) assertLeaseCurrent(thread.lease, request.lease, this.#clock.now());
    this.#preparePut(request)();
  }

  async putWrites(ref: CheckpointRef & { checkpointId: string }, writes: PendingWrite[], lease?: Lease): Promise<void> {
    if (lease) assertLeaseCurrent(this.#thread(ref.threadId, false)?.lease, lease, this.#clock.now());
    this.#prepareWrites(ref, writes).store();
  }

  async acquireLeaseAndGet(ref: CheckpointRef, owner: string, ttlMs: number): Promise<LeasedTuple> {
    // No await between the two: nothing else runs in between, as in one transaction.
    const lease = this.#acquire(ref.threadId, owner, ttlMs);
    return { lease, tuple: this.#get(ref) };
  }

  async commit(request: CommitRequest): Promise<void> {
    const threadId = commitThread(request);
    const { lease } = request;
    if (lease) assertLeaseCurrent(this.#thread(threadId, false)?.lease, lease, this.#clock.now());
    // Everything is checked and serialized before anything is stored: all or nothing.
    // One request: an object in several of its values is written once.
    const texts = this.#encoding();
    const writes = request.writes && this.#prepareWrites(request.writes.ref, request.writes.writes, request.put, texts);
    // Writes against the checkpoint this commit puts are stored with it, before its own writes.
    const put = request.put && this.#preparePut(request.put, writes?.byPut ? writes.stored : undefined, texts);
    if (!writes?.byPut) writes?.store();
    put?.();
    if (lease && request.release) this.#release(lease);
  }

  /** Checks and serializes a put (after `before`, writes a commit records against it); the returned function stores it. */
  #preparePut(request: PutRequest, before?: StoredWrite[], texts = this.#encoding()): () => void {
    const { checkpoint } = request;
    // Serialize everything before touching the store, so a bad value leaves it unchanged.
    const blobs = request.blobs.map((blob) => {
      const { text, key } = texts.texts.serializeKeyed(blob.kind === "full" ? blob.value : blob.items);
      const stored: StoredText = blob.kind === "full" ? text : { base: blob.base, text };
      const row: [string, string, StoredText] = [blob.channel, blob.version, stored];
      if (key !== undefined) {
        texts.keys ??= new Map();
        texts.keys.set(row, key);
      }
      return row;
    });
    const own = request.writes ?? [];
    const writes = own.length === 0 ? (before ?? []) : [...(before ?? []), ...own.map((w) => storedWrite(w, texts))];
    const row = storeRow(checkpoint, this.#serde);
    return () => {
      const thread = this.#thread(checkpoint.threadId, true);
      const ns = this.#namespace(checkpoint.threadId, checkpoint.namespace, true);
      for (const blob of blobs) {
        const stored = blob[2];
        const key = texts.keys?.get(blob);
        if (typeof stored === "string") blob[2] = thread.bodies.keep(stored, key);
        else stored.text = thread.bodies.keep(stored.text, key);
      }
      for (const w of writes) w.text = thread.bodies.keep(w.text, texts.keys?.get(w));
      ns.put(row, blobs, writes);
      if (thread.ttlMs !== undefined) thread.touchedAt = this.#clock.now();
    };
  }

  /**
   * Checks and serializes writes against a checkpoint: a stored one (`store` stores them), or the one
   * `put` stores (`byPut`: they go with it).
   */
  #prepareWrites(
    ref: CheckpointRef & { checkpointId: string },
    writes: PendingWrite[],
    put?: PutRequest,
    texts = this.#encoding(),
  ): { stored: StoredWrite[]; byPut: boolean; store: () => void } {
    const namespace = ref.namespace ?? "";
    const ns = this.#namespace(ref.threadId, namespace, false);
    const byPut = put?.checkpoint.id === ref.checkpointId && put.checkpoint.namespace === namespace;
    if (!byPut && !ns?.get(ref.checkpointId)) {
      throw writesTargetMissing(ref);
    }
    const stored = writes.map((w) => storedWrite(w, texts));
    const store = () => {
      const entry = (ns as NamespaceStore).get(ref.checkpointId);
      const thread = this.#thread(ref.threadId, true);
      for (const w of stored) w.text = thread.bodies.keep(w.text, texts.keys?.get(w));
      if (entry) ns?.addWrites(entry, stored);
      if (thread.ttlMs !== undefined) thread.touchedAt = this.#clock.now();
    };
    return { stored, byPut, store };
  }

  async *list(threadId: string, options: ListOptions = {}): AsyncIterable<CheckpointTuple> {
    const ns = this.#namespace(threadId, options.namespace ?? "", false);
    if (!ns) return;
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    for (let i = ns.rows.length - 1; i >= 0 && remaining > 0; i--) {
      const row = (ns.rows[i] as { row: StoredRow }).row;
      if (options.before !== undefined && row.checkpoint.id >= options.before) continue;
      if (options.filter && !matchesFilter(row.checkpoint, options.filter)) continue;
      remaining--;
      yield this.#tuple(threadId, ns, row);
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    this.#threads.delete(threadId);
  }

  async prune(threadId: string, options: { keepLast: number }): Promise<void> {
    const thread = this.#thread(threadId, false);
    if (!thread) return;
    for (const ns of thread.namespaces.values()) {
      ns.prune(Math.max(1, options.keepLast));
    }
    // Forget the long texts no row holds any more.
    thread.bodies.retain([...thread.namespaces.values()].flatMap((ns) => [...ns.texts()]));
  }

  async setTtl(threadId: string, ttlMs: number | null): Promise<void> {
    const thread = this.#thread(threadId, false);
    if (!thread) return;
    if (ttlMs === null) delete thread.ttlMs;
    else thread.ttlMs = ttlMs;
    thread.touchedAt = this.#clock.now();
  }

  async sweepExpired(): Promise<number> {
    let n = 0;
    for (const threadId of [...this.#threads.keys()]) {
      if (this.#expired(this.#threads.get(threadId) as ThreadData)) {
        this.#threads.delete(threadId);
        n++;
      }
    }
    return n;
  }

  async acquireLease(threadId: string, owner: string, ttlMs: number): Promise<Lease> {
    return this.#acquire(threadId, owner, ttlMs);
  }

  #acquire(threadId: string, owner: string, ttlMs: number): Lease {
    const thread = this.#thread(threadId, true);
    const now = this.#clock.now();
    thread.lease = nextLease(thread.lease, { threadId, owner, ttlMs, now, isHolderDead: this.#isHolderDead });
    return { ...thread.lease };
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    const thread = this.#thread(lease.threadId, false);
    const now = this.#clock.now();
    assertLeaseCurrent(thread?.lease, lease, now);
    const renewed = { ...lease, expiresAt: now + ttlMs };
    (thread as ThreadData).lease = renewed;
    return { ...renewed };
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.#release(lease);
  }

  #release(lease: Lease): void {
    const thread = this.#thread(lease.threadId, false);
    if (thread?.lease && thread.lease.epoch === lease.epoch && thread.lease.owner === lease.owner) {
      thread.lease = { ...thread.lease, expiresAt: 0 };
    }
  }

  /**
   * Bytes this saver holds for a thread: serialized checkpoints, values and writes.
   *
   * @example
   * console.log(await saver.storedBytes("t1"));
   */
  async storedBytes(threadId: string): Promise<number> {
    const thread = this.#thread(threadId, false);
    if (!thread) return 0;
    // A long text held by several rows is kept once (see `shared`), and counted once.
    let bytes = 0;
    for (const text of thread.bodies.values()) bytes += Buffer.byteLength(text);
    for (const ns of thread.namespaces.values()) {
      for (const entry of ns.rows) bytes += rowBytes(entry.row, this.#serde);
      for (const text of ns.texts()) if (text.length < SHARED_BODY_MIN_LENGTH) bytes += Buffer.byteLength(text);
    }
    return bytes;
  }

  #tuple(threadId: string, ns: NamespaceStore, row: StoredRow): CheckpointTuple {
    const checkpoint = readRow(row);
    const values: Record<string, unknown> = {};
    for (const [channel, version] of Object.entries(checkpoint.channelVersions)) {
      values[channel] = rebuildChannelValue(version, (v) => this.#decodeBlob(ns.blob(channel, v)), {
        threadId,
        channel,
      });
    }
    const pendingWrites: PendingWrite[] = [];
    for (const w of ns.get(checkpoint.id)?.writes?.values() ?? []) {
      pendingWrites.push({ taskId: w.taskId, channel: w.channel, value: this.#serde.deserialize(w.text) });
    }
    return { checkpoint, values, pendingWrites };
  }

  #decodeBlob(stored: StoredText | undefined): StoredBlob | undefined {
    if (!stored) return undefined;
    return typeof stored === "string"
      ? { kind: "full", value: this.#serde.deserialize(stored) }
      : { kind: "delta", base: stored.base, items: this.#serde.deserialize(stored.text) as unknown[] };
  }

  #encoding(): Encoding {
    return { texts: new RequestTexts(this.#serde), keys: undefined };
  }

  #thread(threadId: string, create: true): ThreadData;
  #thread(threadId: string, create: boolean): ThreadData | undefined;
  #thread(threadId: string, create: boolean): ThreadData | undefined {
    let thread = this.#threads.get(threadId);
    if (thread && this.#expired(thread)) {
      this.#threads.delete(threadId);
      thread = undefined;
    }
    if (!thread && create) {
      thread = { namespaces: new Map(), bodies: new LongTexts(), touchedAt: this.#clock.now() };
      this.#threads.set(threadId, thread);
    }
    return thread;
  }

  #namespace(threadId: string, namespace: string, create: true): NamespaceStore;
  #namespace(threadId: string, namespace: string, create: boolean): NamespaceStore | undefined;
  #namespace(threadId: string, namespace: string, create: boolean): NamespaceStore | undefined {
    const thread = this.#thread(threadId, create);
    if (!thread) return undefined;
    let ns = thread.namespaces.get(namespace);
    if (!ns && create) {
      ns = new NamespaceStore();
      thread.namespaces.set(namespace, ns);
    }
    return ns;
  }

  #expired(thread: ThreadData): boolean {
    return thread.ttlMs !== undefined && this.#clock.now() >= thread.touchedAt + thread.ttlMs;
  }
}

/**
 * How one request serializes: its texts (an object in several values is written once) and the
 * content key of each blob row and write it made, for the thread's {@link LongTexts}.
 */
interface Encoding {
  texts: RequestTexts;
  /** Made on first need: only long texts have a key. */
  keys: Map<object, string> | undefined;
}

function storedWrite(w: PendingWrite, encoding: Encoding): StoredWrite {
  const { text, key } = encoding.texts.serializeKeyed(w.value);
  const stored = { taskId: w.taskId, channel: w.channel, text };
  if (key !== undefined) {
    encoding.keys ??= new Map();
    encoding.keys.set(stored, key);
  }
  return stored;
}

/**
 * True when every key of `filter` equals the same key of the checkpoint's metadata.
 *
 * @example
 * matchesFilter(checkpoint, { source: "update" });
 */
export function matchesFilter(checkpoint: Checkpoint, filter: Record<string, unknown>): boolean {
  const metadata = checkpoint.metadata as Record<string, unknown>;
  for (const [key, expected] of Object.entries(filter)) {
    if (JSON.stringify(metadata[key]) !== JSON.stringify(expected)) return false;
  }
  return true;
}
