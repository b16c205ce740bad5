import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collect, putStep } from "@trellis/checkpoint/testing";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { CrashDriver } from "@trellis/reliability";
import { afterAll, describe, expect, it } from "vitest";

const driver = new CrashDriver({ script: new URL("./lease-worker.ts", import.meta.url) });
const dir = mkdtempSync(join(tmpdir(), "trellis-sqlite-procs-"));

afterAll(async () => {
  await driver.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("SqliteSaver shared by several processes", () => {
  it("three processes taking turns through the lease keep one linear chain, nothing lost", async () => {
    const filename = join(dir, "shared.db");
    const threadId = "shared-thread";
    const seed = new SqliteSaver({ filename });
    await putStep(seed, { threadId, id: "00000000-root", full: { log: [] } });
    const owners = ["p1", "p2", "p3"];
    const rounds = 40;
    const workers = owners.map((owner) => start({ filename, threadId, owner, rounds }));
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.go();
    const results = await Promise.all(workers.map((w) => w.done));
    const history = await collect(seed.list(threadId));
    expect(history).toHaveLength(1 + owners.length * rounds);
    for (let i = 0; i + 1 < history.length; i++) {
      expect(history[i]?.checkpoint.parentId).toBe(history[i + 1]?.checkpoint.id);
    }
    const log = history[0]?.values.log as string[];
    expect(log).toHaveLength(owners.length * rounds);
    for (const owner of owners) {
      expect(log.filter((entry) => entry.startsWith(`${owner}:`))).toEqual(
        Array.from({ length: rounds }, (_, i) => `${owner}:${i}`),
      );
    }
    // They really contended: each was turned away while another held the thread.
    expect(results.reduce((sum, r) => sum + r.busy, 0)).toBeGreaterThan(0);
    console.log(`[sqlite-processes] THREAD_BUSY answers seen: ${results.map((r) => r.busy).join(", ")}`);
    await seed.close();
  });
});

function start(job: { filename: string; threadId: string; owner: string; rounds: number }) {
  const child = driver.start(job);
  const done = child.next("done", 60_000).then(async (message) => {
    const exit = await child.exit;
    if (exit.code !== 0) throw new Error(`worker ${job.owner} exited with ${exit.code}`);
    return { busy: Number(message.busy) };
  });
  return { ready: child.next("ready"), done, go: () => child.send({ type: "go" }) };
}
