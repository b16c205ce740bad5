/**
 * SSE replay pages by bytes as well as by events: a reader stalled on a run of a few large events holds
 * one page of about 1 MiB, not the run (a run of 24 events of 256 KiB is read in pages of at most
 * 1 MiB plus one event). Through the SSE door, on SQLite and on Postgres.
 */
import net from "node:net";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { describe, expect, it } from "vitest";
import type { TrellisConfig } from "../config/config.js";
import type { EventPage, StoredEvent } from "../stores/run-store.js";
import { REPLAY_PAGE_BYTES } from "../streams/run-follow.js";
import { startTestServer, TEST_GRAPHS } from "./harness.js";

const postgres = await requirePostgres();
const EVENTS = 12;
const EVENT_BYTES = 256 * 1024;

async function post(url: string, path: string, body: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

/** Opens the run's SSE stream on a raw socket and stops reading once the answer began (a stalled reader). */
function stalledReader(port: number, path: string) {
  const socket = net.connect(port, "127.0.0.1");
  const chunks: Buffer[] = [];
  const began = new Promise<void>((resolve) => {
    socket.once("data", (d) => {
      chunks.push(d);
      socket.pause();
      resolve();
    });
  });
  socket.on("connect", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
  return {
    began,
    /** Reads the rest of the stream to its end. */
    async drain(): Promise<string> {
      const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.on("data", (d) => chunks.push(d));
      socket.resume();
      await ended;
      return Buffer.concat(chunks).toString("utf8");
    },
  };
}

async function checkStalledReplay(overrides: Partial<TrellisConfig>) {
  const t = await startTestServer({
    graphs: { ...TEST_GRAPHS, chatty: { module: "./src/test/fixture-chatty.ts", graph: "chattyGraph" } },
    ...overrides,
  });
  try {
    const store = t.server.store;
    const original = store.eventsAfter.bind(store);
    const pages: Array<{ runId: string; events: number; bytes: number; largest: number }> = [];
    store.eventsAfter = async (runId: string, afterSeq: number, page?: number | EventPage) => {
      const rows: StoredEvent[] = await original(runId, afterSeq, page);
      const sizes = rows.map((r) => Buffer.byteLength(JSON.stringify(r.data)));
      pages.push({
        runId,
        events: rows.length,
        bytes: sizes.reduce((a, b) => a + b, 0),
        largest: Math.max(0, ...sizes),
      });
      return rows;
    };
    const thread = (await post(t.url, "/threads", {})).thread_id as string;
    const run = (await post(t.url, `/threads/${thread}/runs`, {
      assistant_id: "chatty",
      input: { count: EVENTS, chunkBytes: EVENT_BYTES },
    })) as { run_id: string };
    await t.server.manager.waitFor(run.run_id);
    pages.length = 0;

    const reader = stalledReader(Number(new URL(t.url).port), `/threads/${thread}/runs/${run.run_id}/stream`);
    await reader.began;
    // the server fills what the socket takes, then waits for the stalled reader
    await new Promise((r) => setTimeout(r, 500));
    const whileStalled = pages.filter((p) => p.runId === run.run_id);
    expect(whileStalled.length).toBeGreaterThan(0);
    for (const p of whileStalled) expect(p.bytes - p.largest).toBeLessThan(REPLAY_PAGE_BYTES);

    // once it reads again it gets every event once, in order
    const text = await reader.drain();
    const ids = [...text.matchAll(/^id: (\d+)\r?$/gm)].map((m) => Number(m[1]));
    expect(ids.length).toBeGreaterThanOrEqual(EVENTS);
    expect(ids.every((id, i) => id === i + 1)).toBe(true);
    const read = pages.filter((p) => p.runId === run.run_id);
    const total = read.reduce((a, p) => a + p.bytes, 0);
    expect(total).toBeGreaterThan(EVENTS * EVENT_BYTES);
    for (const p of read) expect(p.bytes - p.largest).toBeLessThan(REPLAY_PAGE_BYTES);
    expect(read.filter((p) => p.events > 0).length).toBeGreaterThanOrEqual(Math.ceil(total / (REPLAY_PAGE_BYTES * 2)));
  } finally {
    await t.close();
  }
}

describe("SSE replay of a run of a few large events, with a stalled reader", () => {
  it("SQLite: reads pages of about 1 MiB, never the run", async () => {
    await checkStalledReplay({});
  });

  it.skipIf(!postgres)("Postgres: reads pages of about 1 MiB, never the run", async () => {
    const schema = testSchema("replay_bytes");
    try {
      await checkStalledReplay({ saver: { kind: "postgres", url: POSTGRES_URL, schema } });
    } finally {
      await dropSchema(schema);
    }
  });
});
