/**
 * Assistants as data on the embedded server (SQLite): the shared cases, and ownership with auth on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assistantCases } from "./assistant-cases.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-assistants-"));

assistantCases({
  label: "SQLite",
  saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
  async dispose() {
    rmSync(dir, { recursive: true, force: true });
  },
});
