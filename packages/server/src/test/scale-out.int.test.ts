import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrellisConfig } from "../config/config.js";
import { createServer, type TrellisServer } from "../server.js";
import { eventually, PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";
import { POSTGRES_URL, REDIS_URL, requirePostgres, requireRedis } from "./scale-out-services.js";

const postgres = await requirePostgres();
const redis = await requireRedis();

const suffix = randomBytes(4).toString("hex");
const schema = `trellis_server_${suffix}`;
const prefix = `trellis-test-${suffix}:`;
const dir = mkdtempSync(join(tmpdir(), "trellis-scale-"));
const ledger = join(dir, "ledger.txt");
const configPath = join(dir, "trellis.json");
const workers: ChildProcess[] = [];
let api: TrellisServer | undefined;
let apiUrl = "";

const lines = () => (existsSync(ledger) ? readFileSync(ledger, "utf8").split("\n").filter(Boolean) : []);
const count = (line: string) => lines().filter((l) => l.startsWith(`${line} `)).length;

function startWorker(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--conditions=@trellis/source", "--import", "tsx", join(PACKAGE_DIR, "src/bin.ts"), "worker", configPath],
    { cwd: PACKAGE_DIR, env: { ...process.env, TRELLIS_TEST_LEDGER: ledger }, stdio: ["ignore", "pipe", "pipe"] },
  );
  workers.push(child);
  return new Promise((ok, fail) => {
    let err = "";
    child.stderr?.on("data", (d) => {
      err += String(d);
    });
    child.stdout?.on("data", (d) => {
      if (String(d).includes("worker worker-")) ok(child);
    });
    child.on("exit", (code) => fail(new Error(`worker exited (${code}): ${err}`)));
  });
}

beforeAll(async () => {
  if (!postgres || !redis) return;
  const graphs = Object.fromEntries(
    Object.entries(TEST_GRAPHS).map(([id, e]) => [id, { ...e, module: resolve(PACKAGE_DIR, e.module) }]),
  );
  const config: TrellisConfig = {
    graphs,
    saver: { kind: "postgres", url: POSTGRES_URL, schema },
    queue: { kind: "redis", url: REDIS_URL, prefix, concurrency: 2, heartbeatMs: 200, orphanAfterMs: 1_500 },
  };
  writeFileSync(configPath, JSON.stringify(config));
  api = await createServer({ ...config, baseDir: dir }, { workers: 0, env: {} });
  apiUrl = (await api.listen(0)).url;
}, 30_000);

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null) w.kill("SIGKILL");
  await api?.close();
  if (postgres) {
    const c = new pg.Client({ connectionString: POSTGRES_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  }
  if (redis) {
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!postgres || !redis)("scale-out: an API process, two workers, Postgres and Redis", () => {
  it("a worker killed mid-run: the other continues it, no finished task runs twice, the API streams it", {
    timeout: 90_000,
  }, async () => {
    await Promise.all([startWorker(), startWorker()]);
    const client = new Client({ apiUrl, apiKey: null });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", {
      input: { delayMs: 600 },
      streamMode: ["updates"],
    });
    // the API process streams a run that a worker executes (Redis fan-out), across the worker's death
    const events: Array<{ event: string; id?: string }> = [];
    const streamed = (async () => {
      for await (const e of client.runs.joinStream(thread.thread_id, run.run_id)) events.push(e as never);
      return events;
    })();
    // killed in b, once a's event is stored (a client has it: events go out once stored). A worker killed
    // between a step's checkpoint and its events' write — the few ms after the next step starts — loses
    // that step's events: the next attempt continues after it (docs/server.md, "Events")
    await eventually(async () => count("start b") === 1 && events.some((e) => e.event === "updates"), 20_000);
    const victim = Number(
      lines()
        .find((l) => l.startsWith("start b "))
        ?.split(" ")[2],
    );
    const dying = workers.find((w) => w.pid === victim) as ChildProcess;
    dying.kill("SIGKILL");
    await new Promise((r) => dying.once("exit", r));

    const result = (await client.runs.join(thread.thread_id, run.run_id)) as { log: string[] };
    expect(result.log).toEqual(["a", "b", "c"]);
    const finished = await client.runs.get(thread.thread_id, run.run_id);
    expect(finished.status).toBe("success");
    expect(count("start a")).toBe(1);
    expect(count("end a")).toBe(1);
    expect(count("end b")).toBe(1);
    expect(count("end c")).toBe(1);
    expect(
      lines()
        .filter((l) => l.startsWith("end "))
        .every((l) => !l.endsWith(` ${victim}`) || l.startsWith("end a")),
    ).toBe(true);
    const all = await streamed;
    expect(all.filter((e) => e.event === "updates")).toHaveLength(3);
    expect(all.map((e) => Number(e.id))).toEqual(all.map((_, i) => i + 1));
  });

  it("runs of one thread never overlap across workers; runs of other threads do", { timeout: 60_000 }, async () => {
    const client = new Client({ apiUrl, apiKey: null });
    const t1 = await client.threads.create();
    const t2 = await client.threads.create();
    const runs = [];
    for (let i = 0; i < 2; i++) {
      runs.push(
        await client.runs.create(t1.thread_id, "slow", { input: { delayMs: 100 }, multitaskStrategy: "enqueue" }),
      );
    }
    runs.push(await client.runs.create(t2.thread_id, "slow", { input: { delayMs: 100 } }));
    for (const r of runs) await client.runs.join(r.thread_id, r.run_id);
    const statuses = await Promise.all(runs.map(async (r) => (await client.runs.get(r.thread_id, r.run_id)).status));
    expect(statuses).toEqual(["success", "success", "success"]);
    const v1 = (await client.threads.getState(t1.thread_id)).values as { log: string[] };
    expect(v1.log).toEqual(["a", "b", "c", "a", "b", "c"]);
  });
});
