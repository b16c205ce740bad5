import type {
  ChannelBlob,
  CheckpointRef,
  CheckpointSaver,
  CommitRequest,
  Lease,
  PendingWrite,
  PutRequest,
} from "@trellis/checkpoint";
import type { Durability } from "./config.js";
import type { LeaseKeeper } from "./lease-keeper.js";
import type { ThreadState } from "./thread-state.js";

type WritesRef = CheckpointRef & { checkpointId: string };

/**
 * Hands a run's checkpoints and writes to the saver in order, following the durability mode: `sync`
 * waits for each put, `async` queues it, `exit` stores once when the run stops. Writes that arrive
 * while an earlier one is queued travel together in one `putWrites`.
 *
 * With a saver that has `commit`, fewer transactions: writes the run may hold back (a resume value, an
 * interrupt: see `writes`) travel with the writer's next transaction, and the run's last write gives its
 * lease back (`keeper`, the run's own lease; subgraph runs have none). Without `commit`, every write
 * is its own `put` / `putWrites` and the lease is released on its own, as before. @internal
 */
export class CheckpointWriter {
  #queue: Promise<void> = Promise.resolve();
  /** Operations enqueued and not yet settled: at 0, a put starts at once instead of after the queue. */
  #inFlight = 0;
  #failure: { error: unknown } | undefined;
  #buffer: PendingWrite[] | undefined;
  #unsavedWrites = false;
  /** Settles when the latest checkpoint put has (async mode). */
  #lastCheckpoint: Promise<void> = Promise.resolve();
  /** Writes held back for the next transaction, all against one checkpoint. */
  #held: { ref: WritesRef; writes: PendingWrite[] } | undefined;
  /** The run's quick put (see `checkpoint`) while nothing has been queued after it (see `#enqueue`). */
  #unsynced: PutRequest | undefined;

  constructor(
    private readonly saver: CheckpointSaver | undefined,
    private readonly durability: Durability,
    private readonly lease: () => Lease | undefined,
    private readonly snapshotEvery: number,
    private readonly keeper: () => LeaseKeeper | undefined = () => undefined,
  ) {}

  /**
   * Stores `state.checkpoint`. `sync`: resolves once it is stored. `async`: resolves once the previous
   * checkpoint is stored, so the next step overlaps with this put but a crash loses at most this step,
   * however slow the saver (failures are reported by `finish`). Held writes travel with it. `last`: the
   * run writes nothing after this checkpoint, so its commit may give the run's lease back too.
   * Undefined when there is nothing to wait for (no saver, `exit`, or a `sync` put a saver in memory
   * made before returning through `putNow`), so the loop awaits nothing.
   *
   * `quick`: the checkpoint holds only the run's input (no node has run), so the saver may commit it
   * without a disk sync (`PutRequest.quick`). Every later write of the run is synced and carries it; if
   * none comes, `finish` stores it again, synced.
   */
  checkpoint(state: ThreadState, last = false, quick = false): Promise<void> | undefined {
    const saver = this.saver;
    if (!saver || this.durability === "exit") return undefined;
    if (saver.putNow && this.durability === "sync" && !last && !this.#held && this.#inFlight === 0 && !this.#failure) {
      // A saver in memory stores it before returning: nothing to await, no promise (nothing is queued).
      const request = this.#putRequest(state, []);
      this.#buffer = undefined;
      try {
        saver.putNow(request);
      } catch (error) {
        this.#failure = { error };
        throw error;
      }
      return undefined;
    }
    const held = this.#takeHeld();
    const request = this.#putRequest(state, []);
    this.#buffer = undefined;
    if (quick && !held && !last) request.quick = true;
    const done = this.#enqueue(() => this.#commit({ put: request, ...(held ? { writes: held } : {}) }, last), true);
    if (request.quick) this.#unsynced = request;
    if (this.durability === "sync") return done;
    const previous = this.#lastCheckpoint;
    this.#lastCheckpoint = done.then(
      () => undefined,
      () => undefined,
    );
    return previous;
  }

  /**
   * Records writes of one task against the current checkpoint (sync: stored before returning). With
   * `hold`, and a saver that has `commit`, they are only kept, and travel with the writer's next
   * transaction — the next checkpoint's put, other writes, or `finish` — for writes nothing the run does
   * before then depends on being stored: a resume value (the node it answers runs first, and what that
   * node stores goes with or after it) and an interrupt (the run stops).
   */
  writes(
    state: ThreadState,
    taskId: string,
    entries: ReadonlyArray<readonly [string, unknown]>,
    hold = false,
  ): Promise<void> {
    let map = state.pending.get(taskId);
    if (!map) {
      map = new Map();
      state.pending.set(taskId, map);
    }
    for (const [channel, value] of entries) map.set(channel, value);
    if (!this.saver) return Promise.resolve();
    if (this.durability === "exit" || !state.stored) {
      this.#unsavedWrites = true;
      return Promise.resolve();
    }
    const fresh = entries.map(([channel, value]) => ({ taskId, channel, value }));
    if (this.#held && this.#held.ref.checkpointId !== state.checkpoint.id) this.#flushHeld();
    if (hold && this.saver.commit) {
      if (this.#held) this.#held.writes.push(...fresh);
      else this.#held = { ref: refOf(state), writes: fresh };
      return Promise.resolve();
    }
    const held = this.#takeHeld();
    const writes = held ? [...held.writes, ...fresh] : fresh;
    let done: Promise<void>;
    if (this.#buffer) {
      this.#buffer.push(...writes);
      done = this.#queue;
    } else {
      const buffer = writes.slice();
      this.#buffer = buffer;
      const saver = this.saver;
      const ref = refOf(state);
      done = this.#enqueue(() => {
        if (this.#buffer === buffer) this.#buffer = undefined;
        return saver.putWrites(ref, buffer, this.lease());
      });
    }
    return this.durability === "sync" ? done : Promise.resolve();
  }

  /**
   * Stores whatever the durability mode or `writes` held back, waits for every queued operation,
   * reports failures. That last transaction gives the run's lease back when the saver can fold it.
   */
  async finish(state: ThreadState): Promise<void> {
    const saver = this.saver;
    if (saver && (!state.stored || this.#unsavedWrites)) {
      this.#held = undefined; // in state.pending: stored below with every other write
      if (!state.stored) {
        const request = this.#putRequest(state, allWrites(state));
        void this.#enqueue(() => this.#commit({ put: request }, true));
      } else {
        const writes = allWrites(state);
        if (writes.length > 0) void this.#enqueue(() => this.#commit({ writes: { ref: refOf(state), writes } }, true));
      }
      this.#unsavedWrites = false;
    } else if (this.#held) {
      const held = this.#takeHeld();
      if (held) void this.#enqueue(() => this.#commit({ writes: held }, true));
    }
    const unsynced = this.#unsynced;
    if (unsynced) {
      // nothing was queued after the run's quick put: stored again, synced, before anyone hears the end
      const lease = this.lease();
      const { checkpoint, blobs } = unsynced;
      const put: PutRequest = lease ? { checkpoint, blobs, lease } : { checkpoint, blobs };
      void this.#enqueue(() => this.#commit({ put }, true));
    }
    await this.#queue;
    if (this.#failure) throw this.#failure.error;
  }

  /**
   * One transaction: `saver.commit` when the request folds anything (held writes with a put, the
   * lease's release), else today's `put` / `putWrites`. Writes are only ever held for a saver that has
   * `commit`; without it (or without a lease of the run's own) the lease is released separately.
   */
  #commit(request: { put?: PutRequest; writes?: { ref: WritesRef; writes: PendingWrite[] } }, last: boolean) {
    const saver = this.saver as CheckpointSaver;
    const lease = request.put?.lease ?? this.lease();
    const keeper = last && saver.commit ? this.keeper() : undefined;
    if (keeper) {
      return keeper.releaseWith((current) => (saver.commit as Commit)({ lease: current, release: true, ...request }));
    }
    if (request.put && request.writes && saver.commit) return saver.commit(lease ? { lease, ...request } : request);
    if (request.put) return saver.put(request.put);
    const { ref, writes } = request.writes as { ref: WritesRef; writes: PendingWrite[] };
    return saver.putWrites(ref, writes, lease);
  }

  /**
   * Stores the held writes now, in one transaction that also gives the run's lease back when `last`
   * (the run writes nothing after them), and resolves once they are stored. For a pause: its interrupt
   * is held so the lease's release travels with it, but it must be stored before anyone hears of the
   * pause — a caller that saw the question and then lost the process must find it on disk. A failure
   * rejects here and is reported again by `finish`.
   */
  storeHeld(last: boolean): Promise<void> {
    const held = this.#takeHeld();
    if (!held) return Promise.resolve();
    return this.#enqueue(() => this.#commit({ writes: held }, last));
  }

  #takeHeld(): { ref: WritesRef; writes: PendingWrite[] } | undefined {
    const held = this.#held;
    this.#held = undefined;
    return held;
  }

  /** Held writes against a checkpoint the run has moved past (not expected): stored on their own. */
  #flushHeld(): void {
    const held = this.#takeHeld();
    if (held) void this.#enqueue(() => this.#commit({ writes: held }, false));
  }

  /**
   * Runs `op` after everything queued before it. `immediate`: start it now when nothing is queued (a put,
   * whose request is built already); writes always wait a turn, so the ones that follow join them.
   */
  #enqueue(op: () => Promise<void>, immediate = false): Promise<void> {
    // every transaction queued after a quick put is a synced one, and carries it to disk
    this.#unsynced = undefined;
    const start = () => (this.#failure ? undefined : op());
    const run = immediate && this.#inFlight === 0 ? startNow(start) : this.#queue.then(start);
    this.#inFlight++;
    this.#queue = run.then(
      () => {
        this.#inFlight--;
      },
      (error: unknown) => {
        this.#inFlight--;
        this.#failure ??= { error };
      },
    );
    return run;
  }

  /** Builds the put for `state.checkpoint`, deciding for each changed channel: delta or whole. */
  #putRequest(state: ThreadState, writes: PendingWrite[]): PutRequest {
    const blobs: ChannelBlob[] = [];
    const channelDepths: Record<string, number> = {};
    for (const [channel, track] of state.tracks) {
      if (track.dirty) {
        if (track.pending !== null && track.storedVersion !== undefined && track.depth + 1 < this.snapshotEvery) {
          blobs.push({
            channel,
            version: track.version,
            kind: "delta",
            base: track.storedVersion,
            items: track.pending,
          });
          track.depth += 1;
        } else {
          blobs.push({ channel, version: track.version, kind: "full", value: state.values[channel] });
          track.depth = 0;
        }
        track.storedVersion = track.version;
        track.pending = [];
        track.dirty = false;
      }
      if (track.depth > 0) channelDepths[channel] = track.depth;
    }
    // The run's own object, made by `advance` and handed to nobody before this put: completed in place.
    const checkpoint = state.checkpoint;
    checkpoint.parentId = state.lastStoredId;
    checkpoint.channelDepths = channelDepths;
    state.stored = true;
    state.lastStoredId = checkpoint.id;
    const lease = this.lease();
    return lease ? { checkpoint, blobs, writes, lease } : { checkpoint, blobs, writes };
  }
}

type Commit = (request: CommitRequest) => Promise<void>;

/** `start()` as a promise, a synchronous throw as a rejection. */
function startNow(start: () => Promise<void> | undefined): Promise<void> {
  try {
    return Promise.resolve(start());
  } catch (error) {
    return Promise.reject(error);
  }
}

function refOf(state: ThreadState): WritesRef {
  return {
    threadId: state.checkpoint.threadId,
    namespace: state.checkpoint.namespace,
    checkpointId: state.checkpoint.id,
  };
}

function allWrites(state: ThreadState): PendingWrite[] {
  const writes: PendingWrite[] = [];
  for (const [taskId, map] of state.pending)
    for (const [channel, value] of map) writes.push({ taskId, channel, value });
  return writes;
}
