import type { Serializer } from "./serializer.js";
import type { Checkpoint, CheckpointMetadata, PlannedTask } from "./types.js";

/**
 * A checkpoint as {@link MemorySaver} keeps it: its own copy, never shared with the caller, so nothing
 * the caller does to the object it put (or to one it read back) changes what is stored. The row's own
 * fields (ids, step, versions, plan, barriers, the metadata the runtime writes) are copied as they are;
 * what a caller may fill with arbitrary data — metadata keys beyond `source`, `step` and `writes`, and
 * `Send` arguments — goes through the saver's serializer, which checks it is plain data and copies it.
 * So a superstep's row costs a few small object copies instead of serializing the whole row to text,
 * and its text (for {@link MemorySaver.storedBytes}) is made only when asked for. @internal
 */
export interface StoredRow {
  checkpoint: Checkpoint;
  /** Bytes of the row serialized, once someone asked. */
  bytes: number | undefined;
}

/** Copies `checkpoint` for storing; throws `NOT_PLAIN_DATA` (from the serializer) for data it cannot store. @internal */
export function storeRow(checkpoint: Checkpoint, serde: Serializer): StoredRow {
  return {
    checkpoint: copyCheckpoint(checkpoint, (value) => serde.deserialize(serde.serialize(value)), true),
    bytes: undefined,
  };
}

/** A copy of a stored row for a reader, who may change it freely. @internal */
export function readRow(row: StoredRow): Checkpoint {
  return copyCheckpoint(row.checkpoint, structuredClone, false);
}

/** The bytes a row takes serialized, as a saver that keeps text would store it. @internal */
export function rowBytes(row: StoredRow, serde: Serializer): number {
  row.bytes ??= Buffer.byteLength(serde.serialize(row.checkpoint));
  return row.bytes;
}

/** Shared by every stored row with no delta depths or no barriers (most): never changed, never handed out. */
const NONE: Record<string, never> = Object.freeze({});

/**
 * Copies a checkpoint field by field; `copyData` copies what may hold arbitrary data. Keys keep the
 * order of the checkpoint format, so the serialized row is the same text as the checkpoint's. `stored`:
 * the copy is the saver's, which shares one empty object for empty records (a thread's history keeps
 * fewer objects for the collector to mark); a reader's copy has its own.
 */
function copyCheckpoint(cp: Checkpoint, copyData: (value: unknown) => unknown, stored: boolean): Checkpoint {
  return {
    v: cp.v,
    id: cp.id,
    parentId: cp.parentId,
    threadId: cp.threadId,
    namespace: cp.namespace,
    step: cp.step,
    createdAt: cp.createdAt,
    channelVersions: copyStrings(cp.channelVersions),
    channelDepths: stored && isEmpty(cp.channelDepths) ? NONE : { ...cp.channelDepths },
    next: copyPlan(cp.next, copyData),
    barriers: stored && isEmpty(cp.barriers) ? NONE : copyBarriers(cp.barriers),
    metadata: copyMetadata(cp.metadata, copyData),
  };
}

function isEmpty(record: object): boolean {
  for (const _ in record) return false;
  return true;
}

function copyStrings(record: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in record) out[key] = record[key] as string;
  return out;
}

function copyPlan(next: readonly PlannedTask[], copyData: (value: unknown) => unknown): PlannedTask[] {
  const out: PlannedTask[] = new Array(next.length);
  for (let i = 0; i < next.length; i++) {
    const task = next[i] as PlannedTask;
    out[i] = task.send ? { node: task.node, send: { arg: copyData(task.send.arg) } } : { node: task.node };
  }
  return out;
}

function copyBarriers(barriers: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key in barriers) out[key] = (barriers[key] as string[]).slice();
  return out;
}

/**
 * The metadata the runtime writes (`source`, `step`, `writes` of string lists) is copied as it is;
 * any other key, or a `writes` of another shape, sends the whole metadata through `copyData`.
 */
function copyMetadata(metadata: CheckpointMetadata, copyData: (value: unknown) => unknown): CheckpointMetadata {
  let keys = 0;
  for (const key in metadata) {
    keys++;
    if (key !== "source" && key !== "step" && key !== "writes") return copyData(metadata) as CheckpointMetadata;
  }
  const { source, step, writes } = metadata;
  if (keys !== 3 || !Number.isFinite(step) || typeof source !== "string" || !isStringLists(writes)) {
    return copyData(metadata) as CheckpointMetadata;
  }
  const copied: Record<string, string[]> = {};
  for (const node in writes) copied[node] = (writes[node] as string[]).slice();
  return { source, step, writes: copied };
}

function isStringLists(writes: unknown): writes is Record<string, string[]> {
  if (writes === null || typeof writes !== "object" || Object.getPrototypeOf(writes) !== Object.prototype) return false;
  for (const node in writes) {
    const keys = (writes as Record<string, unknown>)[node];
    if (!Array.isArray(keys)) return false;
    for (let i = 0; i < keys.length; i++) if (typeof keys[i] !== "string") return false;
  }
  return true;
}
