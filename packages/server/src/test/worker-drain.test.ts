/**
 * A worker asked to stop (SIGTERM: `manager.stop({ drainMs })`) lets its runs finish the superstep in
 * progress, stores it, and hands the runs back to the queue; the next process continues them from
 * there, running no finished node again.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { eventually, startTestServer, type TestServer } from "./harness.js";

let servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers) await s.close().catch(() => undefined);
  servers = [];
});

it("drains a run at its step boundary, hands it back, and the next start finishes it", async () => {
  const first = await startTestServer();
  servers.push(first);
  const ledger = join(first.dir, "ledger.txt");
  process.env.TRELLIS_TEST_LEDGER = ledger;
  try {
    const lines = () => (existsSync(ledger) ? readFileSync(ledger, "utf8").split("\n").filter(Boolean) : []);
    const count = (what: string) => lines().filter((l) => l.startsWith(`${what} `)).length;
    const run = await first.server.runs.start({ assistantId: "slow", as: "app", input: { delayMs: 400 } });
    await eventually(async () => count("start a") === 1, 10_000);
    const t0 = Date.now();
    await first.server.manager.stop({ drainMs: 20_000 });
    const drainedIn = Date.now() - t0;
    // it stopped at the step boundary (a 400 ms step), not at the end of the 20 s drain
    expect(drainedIn).toBeLessThan(10_000);
    expect(count("end a")).toBe(1); // the step in progress finished
    expect(count("start b")).toBe(0); // and nothing after it started
    const stored = await first.server.store.getRun(run.runId);
    expect(stored?.status).toBe("pending");
    const state = await first.server.saver.get({ threadId: run.threadId });
    expect(state?.checkpoint.next.map((p) => p.node)).toEqual(["b"]);

    // the next process (same file) continues the run from its last checkpoint
    const file = first.server.config.saver.kind === "sqlite" ? first.server.config.saver.path : "";
    await first.server.close();
    servers = [];
    const second = await startTestServer({ saver: { kind: "sqlite", path: file } });
    servers.push(second);
    const done = await second.server.manager.waitFor(run.runId);
    expect(done?.status).toBe("success");
    expect(done?.attempt).toBe(2);
    expect(count("start a")).toBe(1);
    expect(count("end c")).toBe(1);
  } finally {
    delete process.env.TRELLIS_TEST_LEDGER;
    for (const s of servers) await s.close().catch(() => undefined);
    servers = [];
    rmSync(first.dir, { recursive: true, force: true });
  }
});
