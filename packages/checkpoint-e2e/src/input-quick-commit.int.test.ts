import { PostgresSaver } from "@trellis/checkpoint-postgres";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { Command } from "@trellis/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ticketGraph } from "./ticket-graph.js";

// On PostgreSQL a run's input checkpoint commits with `synchronous_commit = off` (`PutRequest.quick`):
// the run's next write commits synchronously, and its WAL flush carries the earlier commit along.
// Observed in the database: a deferred constraint trigger on the saver's tables records the
// `synchronous_commit` in force as each writing transaction commits.

const available = await requirePostgres();
const schema = testSchema("quick");
let saver: PostgresSaver;

beforeAll(async () => {
  if (!available) return;
  saver = new PostgresSaver({ connectionString: POSTGRES_URL, schema, poolConfig: { max: 2 } });
  await saver.setup();
  const s = `"${schema}"`;
  await saver.pool.query(
    `CREATE TABLE ${s}.commit_log (id BIGSERIAL PRIMARY KEY, tbl TEXT NOT NULL, level TEXT NOT NULL)`,
  );
  await saver.pool.query(`CREATE FUNCTION ${s}.log_commit() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      INSERT INTO ${s}.commit_log (tbl, level) VALUES (TG_TABLE_NAME, current_setting('synchronous_commit'));
      RETURN NULL;
    END $fn$`);
  for (const table of ["checkpoints", "writes"]) {
    // deferred: it runs as the transaction commits, so it sees the level the commit is made at
    await saver.pool.query(`CREATE CONSTRAINT TRIGGER log_commit AFTER INSERT OR UPDATE ON ${s}.${table}
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${s}.log_commit()`);
  }
});

afterAll(async () => {
  if (!available) return;
  await saver.close();
  await dropSchema(schema);
});

async function logged(): Promise<string[]> {
  const { rows } = await saver.pool.query(`SELECT tbl, level FROM "${schema}".commit_log ORDER BY id`);
  await saver.pool.query(`DELETE FROM "${schema}".commit_log`);
  return rows.map((r) => `${r.tbl as string} ${r.level as string}`);
}

describe("a run's input checkpoint on PostgresSaver", () => {
  it.skipIf(!available)(
    "commits with synchronous_commit off; the run's other writes commit synchronously",
    async () => {
      const graph = ticketGraph(saver);
      await logged();
      const paused = await graph.invoke({ question: "q" }, { threadId: "t" });
      expect(paused.__interrupt__).toHaveLength(1);
      // the input's checkpoint, then the interrupt (a write) synced before the pause is answered
      expect(await logged()).toEqual(["checkpoints off", "writes on"]);
      const done = await graph.invoke(new Command({ resume: "a" }), { threadId: "t" });
      expect(done).toEqual({ question: "q", answer: "a", done: true });
      // the answer with `ask`'s checkpoint, then `finish`'s: nothing quick, no node ran before them
      expect(await logged()).toEqual(["writes on", "checkpoints on", "checkpoints on"]);
    },
  );
});
