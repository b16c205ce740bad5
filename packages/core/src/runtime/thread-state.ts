import {
  CHECKPOINT_FORMAT_VERSION,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PlannedTask,
} from "@trellis/checkpoint";
import type { StateSchema } from "../state.js";
import { initialValues } from "./apply.js";

/** Where a channel's value stands against what is stored. @internal */
export interface ChannelTrack {
  /** Version of the value in memory (id of the checkpoint whose step wrote it). */
  version: string;
  /** Version last handed to the saver, if any. */
  storedVersion: string | undefined;
  /** Deltas after the last full snapshot, as of `storedVersion`. */
  depth: number;
  /** Items appended since `storedVersion`, or null when the value must be stored whole. */
  pending: unknown[] | null;
  dirty: boolean;
}

/** The state of a thread (one namespace) while a run works on it. @internal */
export interface ThreadState {
  checkpoint: Checkpoint;
  /** Whether `checkpoint` was handed to the saver. */
  stored: boolean;
  /** Id of the last checkpoint handed to the saver. */
  lastStoredId: string | null;
  values: Record<string, unknown>;
  tracks: Map<string, ChannelTrack>;
  /** Writes recorded against `checkpoint`: task id → channel → value. */
  pending: Map<string, Map<string, unknown>>;
}

/** A thread with no history: default values, nothing stored. @internal */
export function freshState(
  schema: StateSchema,
  ref: { threadId: string; namespace: string; id: string; now: number },
): ThreadState {
  return {
    checkpoint: {
      v: CHECKPOINT_FORMAT_VERSION,
      id: ref.id,
      parentId: null,
      threadId: ref.threadId,
      namespace: ref.namespace,
      step: -2,
      createdAt: new Date(ref.now).toISOString(),
      channelVersions: {},
      channelDepths: {},
      next: [],
      barriers: {},
      metadata: { source: "input", step: -2, writes: {} },
    },
    stored: false,
    lastStoredId: null,
    values: initialValues(schema),
    tracks: new Map(),
    pending: new Map(),
  };
}

/** The state a stored checkpoint stands for. @internal */
export function stateFromTuple(schema: StateSchema, tuple: CheckpointTuple): ThreadState {
  const { checkpoint } = tuple;
  const values = initialValues(schema);
  const tracks = new Map<string, ChannelTrack>();
  for (const [channel, version] of Object.entries(checkpoint.channelVersions)) {
    if (!Object.hasOwn(schema, channel)) continue;
    values[channel] = tuple.values[channel];
    tracks.set(channel, {
      version,
      storedVersion: version,
      depth: checkpoint.channelDepths[channel] ?? 0,
      pending: [],
      dirty: false,
    });
  }
  const pending = new Map<string, Map<string, unknown>>();
  for (const write of tuple.pendingWrites) {
    let map = pending.get(write.taskId);
    if (!map) {
      map = new Map();
      pending.set(write.taskId, map);
    }
    map.set(write.channel, write.value);
  }
  return { checkpoint, stored: true, lastStoredId: checkpoint.id, values, tracks, pending };
}

/**
 * Moves the state to a new checkpoint after values changed: bumps the versions of changed channels to
 * the new checkpoint's id and remembers what they appended. @internal
 */
export function advance(
  state: ThreadState,
  next: {
    id: string;
    now: number;
    values: Record<string, unknown>;
    changed: ReadonlyMap<string, unknown[] | null>;
    plan: PlannedTask[];
    barriers: Record<string, string[]>;
    metadata: CheckpointMetadata;
    appendOnly: (channel: string) => boolean;
  },
): void {
  for (const [channel, appended] of next.changed) {
    const track = state.tracks.get(channel);
    if (!track) {
      state.tracks.set(channel, { version: next.id, storedVersion: undefined, depth: 0, pending: null, dirty: true });
      continue;
    }
    track.version = next.id;
    track.dirty = true;
    if (track.pending !== null && appended !== null && next.appendOnly(channel)) {
      for (const item of appended) track.pending.push(item);
    } else {
      track.pending = null;
    }
  }
  const channelVersions: Record<string, string> = {};
  for (const [channel, track] of state.tracks) channelVersions[channel] = track.version;
  state.checkpoint = {
    v: CHECKPOINT_FORMAT_VERSION,
    id: next.id,
    parentId: state.checkpoint.id,
    threadId: state.checkpoint.threadId,
    namespace: state.checkpoint.namespace,
    step: next.metadata.step,
    createdAt: isoTime(next.now),
    channelVersions,
    channelDepths: {},
    next: next.plan,
    barriers: next.barriers,
    metadata: next.metadata,
  };
  state.stored = false;
  state.values = next.values;
  state.pending = new Map();
}

let lastMs = Number.NaN;
let lastIso = "";

/** `new Date(ms).toISOString()`, remembering the last one: supersteps take microseconds, so most share a millisecond. */
function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
