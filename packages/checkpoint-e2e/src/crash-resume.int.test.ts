import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CheckpointSaver, LeaseError } from "@trellis/checkpoint";
import { collect } from "@trellis/checkpoint/testing";
import { PostgresSaver } from "@trellis/checkpoint-postgres";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { CrashDriver, dropSchema, POSTGRES_URL, requirePostgres, runLabel } from "@trellis/reliability";
import { afterAll, describe, expect, it } from "vitest";
import type { CrashJob, CrashTarget } from "./crash-worker.js";

const postgres = await requirePostgres();
const driver = new CrashDriver({ script: new URL("./crash-worker.ts", import.meta.url) });
const dir = mkdtempSync(join(tmpdir(), "trellis-crash-"));
const schemas: string[] = [];
const LEASE_TTL_MS = 3_000;

afterAll(async () => {
  await driver.dispose();
  rmSync(dir, { recursive: true, force: true });
  for (const schema of schemas) await dropSchema(schema);
});

const targets: [string, boolean, () => CrashTarget][] = [
  ["SQLite file", true, () => ({ kind: "sqlite", filename: join(dir, `crash-${Date.now()}.db`) })],
  [
    "PostgreSQL",
    postgres,
    () => {
      const schema = runLabel("crash");
      schemas.push(schema);
      return { kind: "postgres", url: POSTGRES_URL, schema };
    },
  ],
];

describe("a run killed with SIGKILL mid-superstep is continued by another process", () => {
  for (const [name, available, makeTarget] of targets) {
    it.skipIf(!available)(`${name}: no write lost, none applied twice, finished tasks not re-run`, async () => {
      const target = makeTarget();
      const threadId = `crash-${Date.now()}`;
      const ledger = join(dir, `${threadId}-${target.kind}.ledger`);
      const job = (mode: CrashJob["mode"]): CrashJob => ({ mode, target, threadId, ledger, leaseTtlMs: LEASE_TTL_MS });

      // Process 1: runs a, then b1 ∥ b2; killed while b2 is mid-run.
      const first = driver.start(job("crash"));
      await first.next("mid-run", 20_000);
      const exit = await first.kill();
      expect(exit.signal).toBe("SIGKILL");

      // The dead process's lease still fences the thread until it expires.
      const saver = openSaver(target);
      const busy = await saver.acquireLease(threadId, "someone-else", 1_000).catch((e) => e);
      expect(busy).toBeInstanceOf(LeaseError);
      expect(busy.code).toBe("THREAD_BUSY");

      // Process 2: continues the thread from its last checkpoint and pending writes.
      const second = driver.start(job("resume"));
      const done = (await second.next("done", 20_000)) as unknown as { result: { log: string[] } };
      await second.exit;

      expect(done.result.log).toEqual(["a", "b1", "b2:sent", "c"]);
      const entries = readFileSync(ledger, "utf8").trim().split("\n");
      expect(count(entries)).toEqual({
        a: 1, // finished before the crash: not re-run
        b1: 1, // finished in the crashed superstep: its stored writes are applied, it is not re-run
        "b2-start:crash": 1,
        "b2-start:resume": 1, // the task that was cut off runs again…
        email: 1, // …but its durable step does not
        "b2-done": 1,
        c: 1,
      });
      const history = await collect(saver.list(threadId));
      for (let i = 0; i + 1 < history.length; i++) {
        expect(history[i]?.checkpoint.parentId).toBe(history[i + 1]?.checkpoint.id);
      }
      expect(history[0]?.values.log).toEqual(["a", "b1", "b2:sent", "c"]);
      await saver.close?.();
    });
  }
});

function openSaver(target: CrashTarget): CheckpointSaver {
  return target.kind === "sqlite"
    ? new SqliteSaver({ filename: target.filename })
    : new PostgresSaver({ connectionString: target.url, schema: target.schema });
}

function count(entries: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of entries) out[entry] = (out[entry] ?? 0) + 1;
  return out;
}
