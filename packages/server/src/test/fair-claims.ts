/**
 * The fair-share case shared by the SQLite and the Postgres + Redis tests: through HTTP with auth on, a
 * server in a child process, bob queues 1,000 runs with `/runs/batch`, then alice runs one with
 * `/runs/wait`. Alice's run must start before most of bob's queued ones: asserted on the order runs
 * started in (the graph numbers them), never on wall time.
 */
import { expect } from "vitest";
import type { TrellisConfig } from "../config/config.js";
import { type ChildServer, startChildServer } from "./raw-socket.js";

/** The users of the fair-share server. */
export const FAIR_USERS = {
  auth: {
    enabled: true,
    credentials: [
      { user: "bob", apiKey: "key-bob" },
      { user: "alice", apiKey: "key-alice" },
      { user: "ops", apiKey: "key-ops", role: "operator" as const },
    ],
  },
};

/** The fair-share server's config beside `storage` (saver, queue). */
export function fairConfig(storage: Partial<TrellisConfig>): Partial<TrellisConfig> {
  return {
    graphs: { order: { module: "./src/test/fixture-order.ts", graph: "orderGraph" } },
    ...FAIR_USERS,
    limits: { queuedRunsPerUser: 5_000, threadsPerUser: 5_000 },
    ...storage,
  };
}

async function post(url: string, path: string, key: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** How many runs are queued now: the queue depth `/metrics` reports. */
async function pending(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { "x-api-key": "key-ops" } })).text();
  return Number(/^trellis_queue_depth\s+(\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

/**
 * Runs the case on a child server started with `storage`; returns alice's place among the runs that
 * started after she queued hers, and how many of bob's were still queued then.
 */
export async function aliceAfterBobsThousand(
  storage: Partial<TrellisConfig>,
): Promise<{ aheadOfAlice: number; bobQueued: number }> {
  const server: ChildServer = await startChildServer(fairConfig(storage));
  try {
    // each of bob's runs takes 100 ms: 1,000 of them on 2 workers are 50 s of work, far more than queueing them
    const batch = Array.from({ length: 100 }, () => ({ assistant_id: "order", input: { waitMs: 100 } }));
    for (let i = 0; i < 10; i++) {
      const res = await post(server.url, "/runs/batch", "key-bob", batch);
      expect(res.status).toBe(200);
    }
    // runs started so far (bob's): 1,000 less those still queued
    const bobQueued = await pending(server.url);
    expect(bobQueued).toBeGreaterThan(0);
    const startedBefore = 1_000 - bobQueued;
    const res = await post(server.url, "/runs/wait", "key-alice", { assistant_id: "order", input: { waitMs: 0 } });
    expect(res.status).toBe(200);
    const { order } = (await res.json()) as { order: number };
    // the runs that started after bob's count was read and before alice's: bob's, ahead of her
    return { aheadOfAlice: order - 1 - startedBefore, bobQueued };
  } finally {
    await server.stop();
  }
}
