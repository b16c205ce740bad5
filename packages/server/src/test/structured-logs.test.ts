import { PassThrough } from "node:stream";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonLogger, type LogEntry } from "../operations/worker-log.js";
import { startTestServer, TEST_GRAPHS, type TestServer } from "./harness.js";

function sink(isTTY = false) {
  const stdout = Object.assign(new PassThrough(), { isTTY });
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  return { stdout, stderr, out: () => out, err: () => err };
}

describe("jsonLogger", () => {
  it("writes one JSON object a line: info to stdout, warnings and errors to stderr", () => {
    const s = sink();
    const log = jsonLogger({ worker: "w1" }, { stdout: s.stdout, stderr: s.stderr, env: {} });
    log({ level: "info", event: "claim", runId: "r1", threadId: "t1" });
    log({ level: "error", event: "finish", runId: "r1", status: "error", error: new TypeError("boom") });
    expect(JSON.parse(s.out())).toMatchObject({
      worker: "w1",
      level: "info",
      event: "claim",
      runId: "r1",
      threadId: "t1",
    });
    expect(typeof JSON.parse(s.out()).ts).toBe("string");
    expect(JSON.parse(s.err())).toMatchObject({ event: "finish", error: { name: "TypeError", message: "boom" } });
  });

  it("TRELLIS_LOG_LEVEL sets the least level written, over quiet; a wrong one is refused with the choices", () => {
    const s = sink();
    const debug = jsonLogger(
      {},
      { quiet: true, stdout: s.stdout, stderr: s.stderr, env: { TRELLIS_LOG_LEVEL: "debug" } },
    );
    debug({ level: "debug", event: "poll" });
    debug({ level: "info", event: "claim" });
    expect(
      s
        .out()
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).event),
    ).toEqual(["poll", "claim"]);
    const q = sink();
    const quiet = jsonLogger({}, { quiet: true, stdout: q.stdout, stderr: q.stderr, env: {} });
    quiet({ level: "info", event: "claim" });
    quiet({ level: "warn", event: "lease-lost" });
    expect(q.out()).toBe("");
    expect(JSON.parse(q.err()).event).toBe("lease-lost");
    const silent = sink();
    jsonLogger(
      {},
      { stdout: silent.stdout, stderr: silent.stderr, env: { TRELLIS_LOG_LEVEL: "silent" } },
    )({ level: "error", event: "x" });
    expect(silent.err()).toBe("");
    expect(() => jsonLogger({}, { env: { TRELLIS_LOG_LEVEL: "loud" } })).toThrow(
      /use one of debug, info, warn, error, silent/,
    );
  });

  it("writes a readable line on a TTY (or with TRELLIS_LOG_FORMAT=pretty), JSON when told", () => {
    const tty = sink(true);
    jsonLogger(
      {},
      { stdout: tty.stdout, stderr: tty.stderr, env: {} },
    )({ level: "info", event: "finish", runId: "r1", status: "success", reason: "two words" });
    const shown = tty.out().split(String.fromCharCode(27)).join("<ESC>");
    expect(shown).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} <ESC>\[36mINFO <ESC>\[0m finish runId=r1 status=success reason="two words"\n$/,
    );
    const forced = sink(true);
    jsonLogger(
      {},
      { stdout: forced.stdout, stderr: forced.stderr, env: { TRELLIS_LOG_FORMAT: "json" } },
    )({ level: "info", event: "claim" });
    expect(JSON.parse(forced.out()).event).toBe("claim");
  });
});

describe("the run manager's log lines through a server", () => {
  const entries: LogEntry[] = [];
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(
      { graphs: { ...TEST_GRAPHS, usage: { module: "./src/test/fixture-usage.ts", graph: "usageGraph" } } },
      { log: (e) => entries.push(e) },
    );
  });
  afterAll(async () => {
    await t.close();
  });

  it("says when each run starts and ends, with its thread, run and trace ids, and why it failed", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const client = new Client({
      apiUrl: t.url,
      apiKey: null,
      defaultHeaders: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    const thread = await client.threads.create();
    const ok = await client.runs.create(thread.thread_id, "usage", { input: {} });
    await client.runs.join(thread.thread_id, ok.run_id);
    const bad = await client.runs.create(thread.thread_id, "usage", { input: { fail: true } });
    await client.runs.join(thread.thread_id, bad.run_id);
    const about = (runId: string) => entries.filter((e) => e.runId === runId);
    expect(about(ok.run_id).map((e) => [e.level, e.event])).toEqual([
      ["info", "claim"],
      ["info", "finish"],
    ]);
    const [claim, finish] = about(ok.run_id) as [LogEntry, LogEntry];
    expect(claim).toMatchObject({ threadId: thread.thread_id, traceId, attempt: 1, assistantId: "usage" });
    expect(typeof claim.queuedMs).toBe("number");
    expect(finish).toMatchObject({ threadId: thread.thread_id, traceId, status: "success" });
    expect(typeof finish.ms).toBe("number");
    expect(about(bad.run_id).at(-1)).toMatchObject({
      level: "error",
      event: "finish",
      status: "error",
      code: "INVALID_ARGUMENT",
      message: "the writer failed after its model calls",
      traceId,
    });
  });
});
