import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeStoreApi } from "./store-cases.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-store-api-"));

describeStoreApi({
  label: "SQLite",
  saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
  dispose: async () => rmSync(dir, { recursive: true, force: true }),
});
