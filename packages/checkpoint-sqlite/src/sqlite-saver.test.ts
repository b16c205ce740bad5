import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeSaverConformance } from "@trellis/checkpoint/testing";
import BetterSqlite3 from "better-sqlite3";
import { afterAll } from "vitest";
import { SqliteSaver } from "./sqlite-saver.js";
import { corruptSqliteRow } from "./sqlite-test-helpers.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-sqlite-"));
let files = 0;
const filenames = new WeakMap<SqliteSaver, string>();

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeSaverConformance({
  name: "SqliteSaver (file)",
  create: ({ clock }) => {
    const filename = join(dir, `conformance-${++files}.db`);
    const saver = new SqliteSaver({ filename, clock });
    filenames.set(saver, filename);
    return saver;
  },
  // A second connection to the same file: the racing-writer tests go through SQLite's own locking.
  peer: (saver, { clock }) => new SqliteSaver({ filename: filenames.get(saver) as string, clock }),
  corrupt: (saver, target) => corruptSqliteRow(saver.database, target),
});

describeSaverConformance({
  name: "SqliteSaver (:memory:)",
  create: ({ clock }) => new SqliteSaver({ database: new BetterSqlite3(":memory:"), clock }),
  destroy: (saver) => {
    saver.database.close();
  },
  corrupt: (saver, target) => corruptSqliteRow(saver.database, target),
});
