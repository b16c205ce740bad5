import type { ChannelBlob, CheckpointSaver, Lease, PendingWrite, PutRequest } from "@trellis/checkpoint";
import type { Durability } from "./config.js";
import type { ThreadState } from "./thread-state.js";

/**
 * Hands a run's checkpoints and writes to the saver in order, following the durability mode: `sync`
 * waits for each put, `async` queues it, `exit` stores once when the run stops. Writes that arrive
 * while an earlier one is queued travel together in one `putWrites`. @internal
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

  constructor(
    private readonly saver: CheckpointSaver | undefined,
    private readonly durability: Durability,
    private readonly lease: () => Lease | undefined,
    private readonly snapshotEvery: number,
  ) {}

  /**
   * Stores `state.checkpoint`. `sync`: resolves once it is stored. `async`: resolves once the previous
   * checkpoint is stored, so the next step overlaps with this put but a crash loses at most this step,
   * however slow the saver (failures are reported by `finish`). Undefined when there is nothing to
   * wait for (no saver, or `exit`), so the loop awaits nothing.
   */
  checkpoint(state: ThreadState): Promise<void> | undefined {
    if (!this.saver || this.durability === "exit") return undefined;
    const request = this.#putRequest(state, []);
    this.#buffer = undefined;
    const saver = this.saver;
    const done = this.#enqueue(() => saver.put(request), true);
    if (this.durability === "sync") return done;
    const previous = this.#lastCheckpoint;
    this.#lastCheckpoint = done.then(
      () => undefined,
      () => undefined,
    );
    return previous;
  }

  /** Records writes of one task against the current checkpoint (sync: stored before returning). */
  writes(state: ThreadState, taskId: string, entries: ReadonlyArray<readonly [string, unknown]>): Promise<void> {
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
    const writes = entries.map(([channel, value]) => ({ taskId, channel, value }));
    let done: Promise<void>;
    if (this.#buffer) {
      this.#buffer.push(...writes);
      done = this.#queue;
    } else {
      const buffer = writes.slice();
      this.#buffer = buffer;
      const saver = this.saver;
      const ref = {
        threadId: state.checkpoint.threadId,
        namespace: state.checkpoint.namespace,
        checkpointId: state.checkpoint.id,
      };
      done = this.#enqueue(() => {
        if (this.#buffer === buffer) this.#buffer = undefined;
        return saver.putWrites(ref, buffer, this.lease());
      });
    }
    return this.durability === "sync" ? done : Promise.resolve();
  }

  /** Stores whatever the durability mode held back, waits for every queued operation, reports failures. */
  async finish(state: ThreadState): Promise<void> {
    const saver = this.saver;
    if (saver && (!state.stored || this.#unsavedWrites)) {
      if (!state.stored) {
        const request = this.#putRequest(state, allWrites(state));
        void this.#enqueue(() => saver.put(request));
      } else {
        const ref = {
          threadId: state.checkpoint.threadId,
          namespace: state.checkpoint.namespace,
          checkpointId: state.checkpoint.id,
        };
        const writes = allWrites(state);
        if (writes.length > 0) void this.#enqueue(() => saver.putWrites(ref, writes, this.lease()));
      }
      this.#unsavedWrites = false;
    }
    await this.#queue;
    if (this.#failure) throw this.#failure.error;
  }

  /**
   * Runs `op` after everything queued before it. `immediate`: start it now when nothing is queued (a put,
   * whose request is built already); writes always wait a turn, so the ones that follow join them.
   */
  #enqueue(op: () => Promise<void>, immediate = false): Promise<void> {
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
    const checkpoint = { ...state.checkpoint, parentId: state.lastStoredId, channelDepths };
    state.checkpoint = checkpoint;
    state.stored = true;
    state.lastStoredId = checkpoint.id;
    const lease = this.lease();
    return lease ? { checkpoint, blobs, writes, lease } : { checkpoint, blobs, writes };
  }
}

/** `start()` as a promise, a synchronous throw as a rejection. */
function startNow(start: () => Promise<void> | undefined): Promise<void> {
  try {
    return Promise.resolve(start());
  } catch (error) {
    return Promise.reject(error);
  }
}

function allWrites(state: ThreadState): PendingWrite[] {
  const writes: PendingWrite[] = [];
  for (const [taskId, map] of state.pending)
    for (const [channel, value] of map) writes.push({ taskId, channel, value });
  return writes;
}
