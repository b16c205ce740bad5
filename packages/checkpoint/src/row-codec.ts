import { rebuildFromChain, type StoredBlob } from "./delta.js";
import { CorruptCheckpointError, TrellisError } from "./errors.js";
import { checksum, type Serializer } from "./serializer.js";
import type { BodyEncoder } from "./shared-bodies.js";
import type { ChannelBlob, Checkpoint, PendingWrite } from "./types.js";

/**
 * Helpers for saver authors: how a checkpoint, a channel value and a pending write become stored rows
 * (text plus checksum) and back. Every database saver uses these, so they all detect corruption the
 * same way and report it as a {@link CorruptCheckpointError} naming the thread.
 */

/**
 * Where a row belongs, for error messages and `details`.
 *
 * @example
 * const where: RowLocation = { threadId: "t1", namespace: "", checkpointId: "0002" };
 */
export type RowLocation = {
  threadId: string;
  namespace?: string;
  checkpointId?: string;
};

/**
 * A serialized checkpoint and its checksum.
 *
 * @example
 * const row: CheckpointRow = encodeCheckpoint(jsonSerializer, checkpoint);
 */
export interface CheckpointRow {
  body: string;
  sum: string;
}

/**
 * A serialized channel value: `body` is the value (`full`) or the appended items (`delta`). When `ref`
 * is set, a saver stores `body` once per thread under that content key and the row refers to it.
 *
 * @example
 * const [row]: BlobRow[] = encodeBlobs(jsonSerializer, request.blobs);
 */
export interface BlobRow {
  channel: string;
  version: string;
  kind: "full" | "delta";
  /** The version a delta extends; `null` for full values. */
  base: string | null;
  body: string;
  sum: string;
  /** Content key of `body` when it is shared (see `SHARED_BODY_MIN_LENGTH`), else `null`. */
  ref: string | null;
}

/**
 * A serialized pending write.
 *
 * @example
 * const [row]: WriteRow[] = encodeWrites(jsonSerializer, [{ taskId: "t", channel: "a", value: 1 }]);
 */
export interface WriteRow {
  taskId: string;
  channel: string;
  body: string;
  sum: string;
  /** Content key of `body` when it is shared, else `null`. */
  ref: string | null;
}

/**
 * Serializes a checkpoint for storage. Throws a `NOT_PLAIN_DATA` {@link TrellisError} for values that
 * cannot be stored, before anything is written.
 *
 * @example
 * const { body, sum } = encodeCheckpoint(jsonSerializer, checkpoint);
 */
export function encodeCheckpoint(serde: Serializer, checkpoint: Checkpoint): CheckpointRow {
  const body = serde.serialize(checkpoint);
  return { body, sum: checksum(body) };
}

/**
 * Verifies and decodes a stored checkpoint.
 *
 * @example
 * const checkpoint = decodeCheckpoint(jsonSerializer, row, { threadId: "t1" });
 */
export function decodeCheckpoint(serde: Serializer, row: CheckpointRow, where: RowLocation): Checkpoint {
  verify(row.sum, checksum(row.body), "checkpoint", () => where);
  const value = decodeText(serde, row.body, "checkpoint", () => where);
  if (value === null || typeof value !== "object" || typeof (value as Checkpoint).id !== "string") {
    throw corrupt("checkpoint", where, "it is not a checkpoint object");
  }
  return value as Checkpoint;
}

/**
 * Serializes the channel values of a put. When a request names the same (channel, version) twice, the
 * last one wins, as in {@link MemorySaver}. With `bodies` (one per request), an object met twice is
 * serialized once and long bodies get a content key (`ref`); without it every `ref` is `null`.
 *
 * @example
 * const rows = encodeBlobs(jsonSerializer, request.blobs, new BodyEncoder(jsonSerializer));
 */
export function encodeBlobs(serde: Serializer, blobs: readonly ChannelBlob[], bodies?: BodyEncoder): BlobRow[] {
  const byKey = new Map<string, BlobRow>();
  for (const blob of blobs) {
    const value = blob.kind === "full" ? blob.value : blob.items;
    const { body, ref } = bodies ? bodies.encode(value) : { body: serde.serialize(value), ref: null };
    const base = blob.kind === "delta" ? blob.base : null;
    const key = `${blob.channel}\u0000${blob.version}`;
    byKey.delete(key);
    byKey.set(key, {
      channel: blob.channel,
      version: blob.version,
      kind: blob.kind,
      base,
      body,
      sum: blobChecksum(blob.kind, base, body),
      ref,
    });
  }
  return [...byKey.values()];
}

/**
 * The checksum of a stored channel value: it covers the kind and the base version too, so a row whose
 * delta link was altered is caught as well.
 *
 * @example
 * blobChecksum("delta", "0001…", "[1,2]");
 */
export function blobChecksum(kind: "full" | "delta", base: string | null, body: string): string {
  return checksum(`${kind}\u0000${base ?? ""}\u0000${body}`);
}

/**
 * Verifies and decodes one stored channel value.
 *
 * @example
 * const blob = decodeBlob(jsonSerializer, row, { threadId: "t1" });
 */
export function decodeBlob(
  serde: Serializer,
  row: Pick<BlobRow, "channel" | "version" | "kind" | "base" | "sum"> & { body: string | null },
  where: RowLocation,
): StoredBlob {
  // where the row sits, built only for an error (a literal adding keys after a spread is slow on V8)
  const at = () => ({ ...where, channel: row.channel, version: row.version });
  if (row.body === null) throw corrupt("channel value", at(), "the shared body it refers to is missing");
  verify(row.sum, blobChecksum(row.kind, row.base, row.body), "channel value", at);
  const value = decodeText(serde, row.body, "channel value", at);
  if (row.kind === "full") return { kind: "full", value };
  if (!Array.isArray(value) || row.base === null) throw corrupt("channel value", at(), "it is a malformed delta");
  return { kind: "delta", base: row.base, items: value };
}

/**
 * Serializes pending writes. When one request names the same (task, channel) twice, the write keeps
 * the first one's position and the last one's value, as in {@link MemorySaver}. `bodies` as in
 * {@link encodeBlobs}.
 *
 * @example
 * const rows = encodeWrites(jsonSerializer, writes, new BodyEncoder(jsonSerializer));
 */
export function encodeWrites(serde: Serializer, writes: readonly PendingWrite[], bodies?: BodyEncoder): WriteRow[] {
  const byKey = new Map<string, WriteRow>();
  for (const w of writes) {
    const { body, ref } = bodies ? bodies.encode(w.value) : { body: serde.serialize(w.value), ref: null };
    byKey.set(`${w.taskId}\u0000${w.channel}`, {
      taskId: w.taskId,
      channel: w.channel,
      body,
      sum: writeChecksum(w.taskId, w.channel, body),
      ref,
    });
  }
  return [...byKey.values()];
}

/**
 * The checksum of a stored pending write, covering its task id and channel.
 *
 * @example
 * writeChecksum("task-1", "messages", "[]");
 */
export function writeChecksum(taskId: string, channel: string, body: string): string {
  return checksum(`${taskId}\u0000${channel}\u0000${body}`);
}

/**
 * Verifies and decodes one stored pending write.
 *
 * @example
 * const write = decodeWrite(jsonSerializer, row, { threadId: "t1", checkpointId });
 */
export function decodeWrite(
  serde: Serializer,
  row: Pick<WriteRow, "taskId" | "channel" | "sum"> & { body: string | null },
  where: RowLocation,
): PendingWrite {
  const at = () => ({ ...where, taskId: row.taskId, channel: row.channel }); // for an error only, as in decodeBlob
  if (row.body === null) throw corrupt("pending write", at(), "the shared body it refers to is missing");
  verify(row.sum, writeChecksum(row.taskId, row.channel, row.body), "pending write", at);
  return { taskId: row.taskId, channel: row.channel, value: decodeText(serde, row.body, "pending write", at) };
}

/**
 * Rebuilds every channel value of `checkpoint` from delta chains fetched in one go. `chains` maps a
 * channel to its stored records, newest first (the record of the checkpoint's version, then its base,
 * and so on). A missing link is reported as a {@link CorruptCheckpointError}.
 *
 * @example
 * const values = rebuildValues(checkpoint, chains, { threadId: "t1" });
 */
export function rebuildValues(
  checkpoint: Checkpoint,
  chains: ReadonlyMap<string, readonly { version: string; blob: StoredBlob }[]>,
  where: RowLocation,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [channel, version] of Object.entries(checkpoint.channelVersions)) {
    const links = chains.get(channel) ?? [];
    const ordered: StoredBlob[] = [];
    let want: string | undefined = version;
    for (const link of links) {
      if (want === undefined || link.version !== want) break;
      ordered.push(link.blob);
      want = link.blob.kind === "delta" ? link.blob.base : undefined;
    }
    if (want !== undefined) {
      throw new CorruptCheckpointError(
        `Thread "${where.threadId}": the value of channel "${channel}" at version ${want} is missing from storage.`,
        { ...where, channel, version: want },
      );
    }
    values[channel] = rebuildFromChain(ordered.reverse(), { threadId: where.threadId, channel });
  }
  return values;
}

/** Where a row sits, made only when an error names it. */
type LocationOf = () => RowLocation & Record<string, unknown>;

function verify(stored: string, actual: string, what: string, where: LocationOf): void {
  if (stored !== actual) throw corrupt(what, where(), "its checksum does not match its content");
}

function decodeText(serde: Serializer, text: string, what: string, where: LocationOf): unknown {
  try {
    return serde.deserialize(text);
  } catch (cause) {
    if (cause instanceof TrellisError && cause.code !== "SERIALIZATION") throw cause;
    throw corrupt(what, where(), "it cannot be decoded", cause);
  }
}

function corrupt(
  what: string,
  where: RowLocation & Record<string, unknown>,
  why: string,
  cause?: unknown,
): CorruptCheckpointError {
  return new CorruptCheckpointError(
    `Thread "${String(where.threadId)}": a stored ${what} is corrupt (${why}). Restore the thread from a backup, or delete it.`,
    where,
    cause,
  );
}
