import type { CorruptionTarget } from "@trellis/checkpoint/testing";
import type { Database } from "better-sqlite3";

/** Each kind of row: its table, the column naming the checkpoint, and the table's primary key. */
const ROWS = {
  checkpoint: { table: "checkpoints", column: "id", key: ["thread_id", "ns", "id"] },
  blob: { table: "blobs", column: "version", key: ["thread_id", "ns", "channel", "version"] },
  write: { table: "writes", column: "checkpoint_id", key: ["thread_id", "ns", "checkpoint_id", "task_id", "channel"] },
} as const;

/**
 * Damages one stored row behind the saver's back: changes one letter of its body, keeps its checksum.
 * For the conformance suite's corruption tests.
 * @internal
 */
export function corruptSqliteRow(db: Database, target: CorruptionTarget): void {
  if (target.row === "shared") {
    const shared = db
      .prepare("SELECT rowid AS rid, body FROM bodies WHERE thread_id = ? LIMIT 1")
      .get(target.threadId) as { rid: number; body: string } | undefined;
    if (!shared) throw new Error(`no shared body to corrupt for thread ${target.threadId}`);
    db.prepare("UPDATE bodies SET body = ? WHERE rowid = ?").run(flipOneLetter(shared.body), shared.rid);
    return;
  }
  // the tables are WITHOUT ROWID (schema version 4): the row is named by its primary key
  const { table, column, key } = ROWS[target.row];
  const row = db
    .prepare(`SELECT ${key.join(", ")}, body FROM ${table} WHERE thread_id = ? AND ns = ? AND ${column} = ? LIMIT 1`)
    .get(target.threadId, target.namespace, target.checkpointId) as Record<string, string> | undefined;
  if (!row) throw new Error(`no ${target.row} row to corrupt for checkpoint ${target.checkpointId}`);
  db.prepare(`UPDATE ${table} SET body = ? WHERE ${key.map((k) => `${k} = ?`).join(" AND ")}`).run(
    flipOneLetter(row.body as string),
    ...key.map((k) => row[k]),
  );
}

/** Changes one lowercase letter (searching from the middle), so JSON stays valid but the content differs. */
export function flipOneLetter(text: string): string {
  const start = Math.floor(text.length / 2);
  for (let k = 0; k < text.length; k++) {
    const i = (start + k) % text.length;
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) {
      const flipped = String.fromCharCode(c === 122 ? 97 : c + 1);
      return text.slice(0, i) + flipped + text.slice(i + 1);
    }
  }
  return `${text} `;
}
