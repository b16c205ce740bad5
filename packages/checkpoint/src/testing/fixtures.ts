import { randomUUID } from "node:crypto";
import type { CheckpointSaver } from "../saver.js";
import {
  CHECKPOINT_FORMAT_VERSION,
  type ChannelBlob,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
  type Lease,
  type PendingWrite,
  type PutRequest,
} from "../types.js";

/**
 * A thread id no other test uses, so suites can share one database, schema or key prefix.
 *
 * @example
 * const threadId = uniqueThreadId("fork");
 */
export function uniqueThreadId(label = "t"): string {
  return `${label}-${randomUUID()}`;
}

/**
 * Reads an async iterable to the end.
 *
 * @example
 * const history = await collect(saver.list("t1"));
 */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * What {@link stepRequest} builds a put from.
 *
 * @example
 * const spec: StepSpec = { threadId: "t1", id: "0002", parent, append: { messages: [reply] } };
 */
export interface StepSpec {
  threadId: string;
  id: string;
  namespace?: string;
  /** The checkpoint this one follows; its channel versions carry over. */
  parent?: Checkpoint | null;
  /** Channels replaced by a whole value. */
  full?: Record<string, unknown>;
  /** Append-only channels extended by these items (stored as a delta on the parent's version). */
  append?: Record<string, unknown[]>;
  writes?: PendingWrite[];
  metadata?: Partial<CheckpointMetadata>;
  lease?: Lease;
  createdAt?: string;
}

/**
 * Builds a put request the way the runtime does: only the changed channels get a blob, versioned by
 * the new checkpoint's id; appended channels store a delta on the parent's version.
 *
 * @example
 * const first = stepRequest({ threadId, id: nextId(), full: { messages: [] } });
 * const second = stepRequest({ threadId, id: nextId(), parent: first.checkpoint, append: { messages: [m] } });
 */
export function stepRequest(spec: StepSpec): PutRequest {
  const parent = spec.parent ?? null;
  const channelVersions = { ...(parent?.channelVersions ?? {}) };
  const channelDepths = { ...(parent?.channelDepths ?? {}) };
  const blobs: ChannelBlob[] = [];
  for (const [channel, value] of Object.entries(spec.full ?? {})) {
    blobs.push({ channel, version: spec.id, kind: "full", value });
    channelVersions[channel] = spec.id;
    channelDepths[channel] = 0;
  }
  for (const [channel, items] of Object.entries(spec.append ?? {})) {
    const base = channelVersions[channel];
    if (base === undefined) throw new Error(`stepRequest: channel "${channel}" has no value to append to`);
    blobs.push({ channel, version: spec.id, kind: "delta", base, items });
    channelVersions[channel] = spec.id;
    channelDepths[channel] = (channelDepths[channel] ?? 0) + 1;
  }
  const step = parent ? parent.step + 1 : -1;
  const checkpoint: Checkpoint = {
    v: CHECKPOINT_FORMAT_VERSION,
    id: spec.id,
    parentId: parent?.id ?? null,
    threadId: spec.threadId,
    namespace: spec.namespace ?? "",
    step,
    createdAt: spec.createdAt ?? "2030-01-01T00:00:00.000Z",
    channelVersions,
    channelDepths,
    next: [],
    barriers: {},
    metadata: { source: parent ? "loop" : "input", step, writes: {}, ...spec.metadata },
  };
  const request: PutRequest = { checkpoint, blobs };
  if (spec.writes) request.writes = spec.writes;
  if (spec.lease) request.lease = spec.lease;
  return request;
}

/**
 * Puts a step built by {@link stepRequest} and returns its checkpoint.
 *
 * @example
 * const cp = await putStep(saver, { threadId, id: nextId(), full: { count: 1 } });
 */
export async function putStep(saver: CheckpointSaver, spec: StepSpec): Promise<Checkpoint> {
  const request = stepRequest(spec);
  await saver.put(request);
  return request.checkpoint;
}

/**
 * The latest checkpoint of a thread, failing loudly when there is none.
 *
 * @example
 * const { values } = await latest(saver, threadId);
 */
export async function latest(saver: CheckpointSaver, threadId: string, namespace = ""): Promise<CheckpointTuple> {
  const tuple = await saver.get({ threadId, namespace });
  if (!tuple) throw new Error(`thread ${threadId} has no checkpoint in namespace "${namespace}"`);
  return tuple;
}
