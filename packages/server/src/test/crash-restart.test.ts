import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "./harness.js";
import { launchServeChild } from "./serve-child-launch.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-crash-"));
const ledger = join(dir, "ledger.txt");
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the server in a child process on this test's SQLite file, writing to its ledger. */
async function startChild(): Promise<{ child: ChildProcess; url: string }> {
  const { child, url } = launchServeChild([join(dir, "db.sqlite")], { ...process.env, TRELLIS_TEST_LEDGER: ledger });
  children.push(child);
  return { child, url: await url };
}

const lines = () => (existsSync(ledger) ? readFileSync(ledger, "utf8") : "").split("\n").filter(Boolean);
const count = (line: string) => lines().filter((l) => l.startsWith(`${line} `)).length;

describe("a server killed mid-run", () => {
  it("continues the run after a restart; no finished task runs twice", { timeout: 60_000 }, async () => {
    const first = await startChild();
    const client = new Client({ apiUrl: first.url, apiKey: null });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: { delayMs: 700 } });
    await eventually(async () => count("start b") === 1, 15_000);
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));
    expect(count("end a")).toBe(1);
    expect(count("end b")).toBe(0);

    const second = await startChild();
    const again = new Client({ apiUrl: second.url, apiKey: null });
    const restarted = Date.now();
    const result = (await again.runs.join(thread.thread_id, run.run_id)) as { log: string[] };
    // the dead process's lease on the thread (30 s TTL) is free at once: its holder is provably gone
    // (the run finishes well before the TTL, with a margin a loaded machine keeps)
    expect(Date.now() - restarted).toBeLessThan(20_000);
    expect(result.log).toEqual(["a", "b", "c"]);
    const finished = await again.runs.get(thread.thread_id, run.run_id);
    expect(finished.status).toBe("success");
    expect((finished as unknown as { attempt: number }).attempt).toBe(2);
    expect(count("start a")).toBe(1); // a had finished: not run again
    expect(count("end a")).toBe(1);
    expect(count("start b")).toBe(2); // b was cut off mid-way: run again
    expect(count("end b")).toBe(1);
    expect(count("end c")).toBe(1);
    // and the thread takes a state update at once
    await again.threads.updateState(thread.thread_id, { values: { log: ["edited"] }, asNode: "c" });
    expect((await again.threads.getState(thread.thread_id)).values).toMatchObject({ log: ["a", "b", "c", "edited"] });
    second.child.kill("SIGTERM");
  });
});
