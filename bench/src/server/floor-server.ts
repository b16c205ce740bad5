/**
 * Child process: the floor of the server bench — the same HTTP framework as the Trellis server (Hono on
 * @hono/node-server) answering the same requests with the same JSON, each from one SQLite transaction
 * (WAL, prepared statements, and `synchronous = FULL`: the Trellis server's SQLite saver syncs each
 * commit to disk, so its floor does too). No queue, no checkpoints, no graph: the least an
 * HTTP service that keeps its threads in SQLite must do. Usage: `node floor-server.js <dir>`; sends
 * `{ type: "ready", url }` over IPC, closes on `{ type: "stop" }`.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { TICKS } from "./graphs.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: floor-server.js <dir>");
const db = new Database(join(dir, "floor.sqlite"));
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.exec(`
  CREATE TABLE threads (id TEXT PRIMARY KEY, state TEXT NOT NULL);
  CREATE TABLE runs (id TEXT PRIMARY KEY, thread TEXT, input TEXT NOT NULL, output TEXT NOT NULL);
  CREATE TABLE events (run TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (run, seq));
`);
const insertThread = db.prepare("INSERT INTO threads (id, state) VALUES (?, ?)");
const readThread = db.prepare("SELECT state FROM threads WHERE id = ?").pluck();
const writeThread = db.prepare("UPDATE threads SET state = ? WHERE id = ?");
const insertRun = db.prepare("INSERT INTO runs (id, thread, input, output) VALUES (?, ?, ?, ?)");
const insertEvent = db.prepare("INSERT INTO events (run, seq, event, data) VALUES (?, ?, ?, ?)");
const readEvents = db.prepare("SELECT seq, event, data FROM events WHERE run = ? ORDER BY seq");

interface Hitl {
  question: string;
  first: string;
  second: string;
  done: boolean;
  /** Where the thread waits: 1 or 2, 0 when it does not. */
  waiting: number;
}

type Body = { input?: Record<string, unknown>; command?: { resume?: unknown } };

/** One step of the hitl graph, as `runs/wait` answers it: the values, with `__interrupt__` while paused. */
const hitlRun = db.transaction((threadId: string, body: Body) => {
  const text = readThread.get(threadId) as string | undefined;
  if (text === undefined) return undefined;
  const s = JSON.parse(text) as Hitl;
  if (body.command) {
    const answer = String(body.command.resume);
    if (s.waiting === 1) Object.assign(s, { first: answer, waiting: 2 });
    else if (s.waiting === 2) Object.assign(s, { second: answer, waiting: 0, done: true });
  } else {
    Object.assign(s, { question: String(body.input?.question ?? ""), first: "", second: "", done: false, waiting: 1 });
  }
  const { waiting, ...values } = s;
  const out =
    waiting === 0 ? values : { ...values, __interrupt__: [{ value: { question: `${s.question}/${waiting}` } }] };
  writeThread.run(JSON.stringify(s), threadId);
  insertRun.run(randomUUID(), threadId, JSON.stringify(body), JSON.stringify(out));
  return out;
});

const quickRun = db.transaction((body: Body) => {
  const n = Number(body.input?.n ?? 0);
  const out = { n, out: n + 1 };
  insertRun.run(randomUUID(), null, JSON.stringify(body), JSON.stringify(out));
  return out;
});

/** A ticker run: its events, stored in the same transaction as the run. */
const tickerRun = db.transaction((threadId: string, body: Body) => {
  const runId = randomUUID();
  insertRun.run(runId, threadId, JSON.stringify(body), JSON.stringify({ count: TICKS }));
  insertEvent.run(runId, 1, "metadata", JSON.stringify({ run_id: runId }));
  for (let i = 1; i <= TICKS; i++) insertEvent.run(runId, i + 1, "updates", JSON.stringify({ tick: { count: i } }));
  return runId;
});

const app = new Hono();
app.post("/threads", (c) => {
  const id = randomUUID();
  insertThread.run(id, JSON.stringify({ question: "", first: "", second: "", done: false, waiting: 0 }));
  return c.json({ thread_id: id });
});
app.post("/threads/:thread_id/runs/wait", async (c) => {
  const out = hitlRun(c.req.param("thread_id"), (await c.req.json()) as Body);
  return out ? c.json(out) : c.json({ detail: "thread not found" }, 404);
});
app.post("/runs/wait", async (c) => c.json(quickRun((await c.req.json()) as Body)));
app.post("/threads/:thread_id/runs", async (c) => {
  const runId = tickerRun(c.req.param("thread_id"), (await c.req.json()) as Body);
  return c.json({ run_id: runId, thread_id: c.req.param("thread_id"), status: "success" });
});
app.get("/threads/:thread_id/runs/:run_id/stream", (c) =>
  streamSSE(c, async (sse) => {
    const rows = readEvents.all(c.req.param("run_id")) as Array<{ seq: number; event: string; data: string }>;
    for (const row of rows) await sse.writeSSE({ id: String(row.seq), event: row.event, data: row.data });
  }),
);

const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
  process.send?.({ type: "ready", url: `http://127.0.0.1:${info.port}` });
});
process.on("message", (m: { type?: string }) => {
  if (m.type !== "stop") return;
  server.close(() => {
    db.close();
    process.exit(0);
  });
});
