import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { loadConfig, resolveConfig } from "../config/config.js";
import { createServer } from "../server.js";
import { REPO_DIR, startTestServer } from "./harness.js";

describe("config", () => {
  it("reads the root trellis.json and serves its graphs", async () => {
    const config = await loadConfig(join(REPO_DIR, "trellis.json"));
    expect(config.graphs["approval-flow"]?.graph).toBe("buildGraph");
    expect(resolveConfig(config, {}).saver).toEqual({
      kind: "sqlite",
      path: join(REPO_DIR, ".trellis/trellis.sqlite"),
    });
    const server = await createServer({ ...config, saver: { kind: "sqlite", path: ":memory:" } }, { env: {} });
    const res = await server.app.request("/assistants/approval-flow");
    expect(res.status).toBe(200);
    await server.close();
  });

  it("applies defaults and the environment", () => {
    const r = resolveConfig(
      { graphs: {}, auth: { enabled: true, credentials: [{ user: "ana", apiKey: "$ANA_KEY" }] } },
      { PORT: "9000", ANA_KEY: "secret" },
    );
    expect(r.port).toBe(9000);
    expect(r.host).toBe("127.0.0.1");
    expect(r.limits).toEqual({
      bodyBytes: 1024 * 1024,
      stateBytes: 8 * 1024 * 1024,
      runTimeMs: 15 * 60_000,
      streamsPerUser: 50,
      queuedRunsPerUser: 1_000,
      cronsPerUser: 100,
      threadsPerUser: 10_000,
      storeItemsPerUser: 10_000,
      storeBytesPerUser: 100 * 1024 * 1024,
    });
    expect(r.auth.credentials).toEqual([{ user: "ana", apiKey: "secret" }]);
    expect(r.auth.operators).toEqual([]);
    const ops = resolveConfig(
      { graphs: {}, auth: { enabled: true, credentials: [{ user: "ops", apiKey: "k", role: "operator" }] } },
      {},
    );
    expect(ops.auth.operators).toEqual(["ops"]);
    expect(resolveConfig({ graphs: {}, limits: { cronsPerUser: 3 } }, {}).limits.cronsPerUser).toBe(3);
    expect(() => resolveConfig({ graphs: {}, limits: { threadsPerUser: 0 } }, {})).toThrow(/limits.threadsPerUser/);
    expect(() =>
      resolveConfig(
        { graphs: {}, auth: { enabled: true, credentials: [{ user: "x", apiKey: "k", role: "root" as never }] } },
        {},
      ),
    ).toThrow(/role/);
    expect(resolveConfig({ graphs: {} }, {}).port).toBe(8123);
  });

  it("refuses a bad config with INVALID_CONFIG", async () => {
    expect(() => resolveConfig({ graphs: { "bad id!": { module: "x" } } }, {})).toThrow(/assistant id/);
    expect(() => resolveConfig({ graphs: {}, saver: { kind: "mongo" } as never }, {})).toThrow(/saver.kind/);
    await expect(
      createServer(
        { graphs: { x: { module: "./nope.js" } }, saver: { kind: "sqlite", path: ":memory:" } },
        { env: {} },
      ),
    ).rejects.toMatchObject({ code: "INVALID_CONFIG" });
    await expect(loadConfig("/nonexistent/trellis.json")).rejects.toMatchObject({ code: "INVALID_CONFIG" });
  });
});

describe("application modules", () => {
  it("builds graphs from async factories and mounts route factories under /apps/<id>/", async () => {
    const t = await startTestServer({
      graphs: { tutor: { module: "./src/test/fixture-app.ts", graph: "makeGraph", routes: "routes" } },
    });
    const res = await fetch(`${t.url}/apps/tutor/hello`);
    expect(await res.json()).toEqual({ assistant: "tutor", graph: "ask" });
    // the graph is served with the server's saver: a stateless run works and leaves no thread behind
    const client = new Client({ apiUrl: t.url, apiKey: null });
    const out = (await client.runs.wait(null, "tutor", { input: { log: [] } })) as Record<string, unknown>;
    expect(out.__interrupt__).toBeDefined();
    await new Promise((r) => setTimeout(r, 50));
    expect(await client.threads.search()).toEqual([]);
    await t.close();
  });
});
