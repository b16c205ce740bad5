import {
  type BlobRow,
  type Checkpoint,
  type CheckpointTuple,
  decodeBlob,
  decodeCheckpoint,
  decodeWrite,
  rebuildValues,
  type Serializer,
  type StoredBlob,
} from "@trellis/checkpoint";
import type { Statement } from "better-sqlite3";
import { SQL } from "./sqlite-sql.js";

/** A row of `checkpoints` as the saver reads it. @internal */
export interface CheckpointRowData {
  id: string;
  body: string;
  sum: string;
}

/** What reading a tuple needs from the saver: its prepared statements and its serializer. @internal */
export interface TupleReader {
  stmt(sql: string): Statement;
  serde: Serializer;
}

/**
 * The tuple of a checkpoint row, read inside the caller's transaction: the values rebuilt from their
 * delta chains (one recursive query for every channel) and the pending writes, each row checked
 * against its checksum. @internal
 */
export function readTuple(
  reader: TupleReader,
  at: { threadId: string; ns: string },
  row: CheckpointRowData,
): CheckpointTuple {
  const { threadId, ns } = at;
  const where = { threadId, namespace: ns, checkpointId: row.id };
  const checkpoint: Checkpoint = decodeCheckpoint(reader.serde, row, where);
  const chains = new Map<string, { version: string; blob: StoredBlob }[]>();
  const links = reader.stmt(SQL.chains).all({
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
    chain.push({ version: link.version, blob: decodeBlob(reader.serde, link, where) });
  }
  const values = rebuildValues(checkpoint, chains, where);
  const writes = reader.stmt(SQL.writesOf).all(threadId, ns, row.id) as {
    task_id: string;
    channel: string;
    body: string | null;
    sum: string;
  }[];
  const pendingWrites = writes.map((w) =>
    decodeWrite(reader.serde, { taskId: w.task_id, channel: w.channel, body: w.body, sum: w.sum }, where),
  );
  return { checkpoint, values, pendingWrites };
}
