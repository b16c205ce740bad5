import type { CorruptionTarget } from "@trellis/checkpoint/testing";
import type pg from "pg";

export { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "./testing.js";

const ROWS = {
  checkpoint: { table: "checkpoints", column: "id" },
  blob: { table: "blobs", column: "version" },
  write: { table: "writes", column: "checkpoint_id" },
} as const;

/** Changes one letter of a stored row's body behind the saver's back, keeping its checksum. @internal */
export async function corruptPostgresRow(pool: pg.Pool, schema: string, target: CorruptionTarget): Promise<void> {
  const table = target.row === "shared" ? "bodies" : ROWS[target.row].table;
  const { rows } = await pool.query<{ ctid: string; body: string }>(
    target.row === "shared"
      ? `SELECT ctid::text, body FROM "${schema}".bodies WHERE thread_id = $1 LIMIT 1`
      : `SELECT ctid::text, body FROM "${schema}".${table} WHERE thread_id = $1 AND ns = $2 AND ${ROWS[target.row].column} = $3 LIMIT 1`,
    target.row === "shared" ? [target.threadId] : [target.threadId, target.namespace, target.checkpointId],
  );
  const row = rows[0];
  if (!row) throw new Error(`no ${target.row} row to corrupt for checkpoint ${target.checkpointId}`);
  await pool.query(`UPDATE "${schema}".${table} SET body = $1 WHERE ctid = $2::tid`, [
    flipOneLetter(row.body),
    row.ctid,
  ]);
}

function flipOneLetter(text: string): string {
  const start = Math.floor(text.length / 2);
  for (let k = 0; k < text.length; k++) {
    const i = (start + k) % text.length;
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) return text.slice(0, i) + String.fromCharCode(c === 122 ? 97 : c + 1) + text.slice(i + 1);
  }
  return `${text} `;
}
