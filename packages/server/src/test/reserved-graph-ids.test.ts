/**
 * Graph ids are reserved: bob made an assistant with the id of a graph the operator adds to trellis.json
 * later; after the restart with the new config, every user reaches the graph by its id, bob keeps his
 * assistant under a new id, and no one can make an assistant with a graph's id.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AuthConfig, GraphEntry, TrellisConfig } from "../config/config.js";
import type { LogEntry } from "../operations/worker-log.js";
import { createServer } from "../server.js";
import { PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-reserved-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const auth: AuthConfig = {
  enabled: true,
  credentials: [
    { user: "bob", apiKey: "key-bob" },
    { user: "alice", apiKey: "key-alice" },
  ],
};

async function serve(graphs: TrellisConfig["graphs"], log: LogEntry[] = []) {
  const server = await createServer(
    { graphs, saver: { kind: "sqlite", path: join(dir, "reserved.sqlite") }, auth, baseDir: PACKAGE_DIR },
    { env: {}, log: (e) => log.push(e) },
  );
  const { url } = await server.listen(0);
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> };
  };
  return { server, call };
}

describe("graph ids are reserved", () => {
  it("a squatted graph id is the graph's for every user after the operator adds it; the squatter's assistant moves aside", async () => {
    const before = await serve({ slow: TEST_GRAPHS.slow as GraphEntry });
    const squat = await before.call("key-bob", "POST", "/assistants", {
      assistant_id: "order",
      graph_id: "slow",
      config: { configurable: { who: "bob" } },
    });
    expect(squat.status).toBe(200);
    await before.server.close();

    const log: LogEntry[] = [];
    const after = await serve(
      { slow: TEST_GRAPHS.slow as GraphEntry, order: { module: "./src/test/fixture-order.ts", graph: "orderGraph" } },
      log,
    );
    try {
      const seen = await after.call("key-alice", "GET", "/assistants/order");
      expect(seen.status).toBe(200);
      expect(seen.body).toMatchObject({ assistant_id: "order", graph_id: "order", metadata: { created_by: "system" } });
      const ran = await after.call("key-alice", "POST", "/runs/wait", { assistant_id: "order", input: { waitMs: 0 } });
      expect(ran.status).toBe(200);
      expect(ran.body.order).toBeGreaterThan(0);
      // bob's assistant is his still, under a new id that says where it came from
      const mine = await after.call("key-bob", "POST", "/assistants/search", { graph_id: "slow", limit: 10 });
      const moved = (mine.body as unknown as Array<Record<string, unknown>>).find(
        (a) => (a.metadata as Record<string, unknown>).moved_from === "order",
      );
      expect(moved?.assistant_id).toMatch(/^order\.moved-[0-9a-f]{8}$/);
      expect(moved?.config).toMatchObject({ configurable: { who: "bob" } });
      expect((await after.call("key-alice", "GET", `/assistants/${moved?.assistant_id}`)).status).toBe(404);
      expect(log.filter((e) => e.event === "assistant-moved-aside")).toEqual([
        expect.objectContaining({ level: "warn", assistantId: "order", movedTo: moved?.assistant_id, owner: "bob" }),
      ]);
      // a graph's id can no longer be taken
      const again = await after.call("key-bob", "POST", "/assistants", { assistant_id: "slow", graph_id: "slow" });
      expect(again.status).toBe(409);
      expect(again.body.message).toMatch(/graph "slow" of trellis\.json, reserved/);
    } finally {
      await after.server.close();
    }
  });
});
