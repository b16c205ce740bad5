/**
 * The server's memory over many runs (issue: RSS grew ~13 KiB per run, 152 → 229 MiB over 2,000
 * sequential runs, with a flat JS heap). A server in its own process takes 10,000 sequential runs over
 * HTTP — 5,000 threads, each started to its interrupt and resumed to its end; its RSS after a full GC
 * at 10,000 runs must be within 10 % of its RSS at 2,000.
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";

const tsx = createRequire(import.meta.url).resolve("tsx");
const SERVER = new URL("./workers/memory-server.ts", import.meta.url);
const MIB = 1024 * 1024;

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

let child: ChildProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), "trellis-memory-"));
afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

it("RSS after 10,000 runs is within 10 % of RSS after 2,000", async () => {
  child = fork(SERVER, [join(dir, "trellis.sqlite")], {
    execArgv: ["--conditions=@trellis/source", "--import", tsx, "--expose-gc"],
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const server = child;
  const port = await new Promise<number>((resolve, reject) => {
    server.once("exit", (code) => reject(new Error(`the server exited (${code})`)));
    server.stdout?.on("data", (d) => {
      const m = /READY (\d+)/.exec(String(d));
      if (m) resolve(Number(m[1]));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const memory = () =>
    new Promise<Memory>((resolve) => {
      server.once("message", (m) => resolve(m as Memory));
      server.send("mem");
    });
  const samples: Array<{ runs: number } & Memory> = [];
  for (let i = 1; i <= 5_000; i++) {
    const thread = (await post("/threads", {})) as { thread_id: string };
    const paused = await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: "ask", input: { log: [] } });
    if (!paused.__interrupt__) throw new Error(`run ${i} did not pause: ${JSON.stringify(paused)}`);
    await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: "ask", command: { resume: "yes" } });
    if (i % 500 === 0) samples.push({ runs: i * 2, ...(await memory()) });
  }
  const line = (s: (typeof samples)[number]) =>
    `${s.runs} runs: rss ${(s.rss / MIB).toFixed(1)} MiB, heap ${(s.heapUsed / MIB).toFixed(1)}/${(s.heapTotal / MIB).toFixed(1)} MiB, external ${(s.external / MIB).toFixed(1)} MiB`;
  console.log(samples.map(line).join("\n"));
  const at2k = samples.find((s) => s.runs === 2_000) as Memory;
  const at10k = samples.find((s) => s.runs === 10_000) as Memory;
  expect(at10k.rss / at2k.rss).toBeLessThan(1.1);
});
