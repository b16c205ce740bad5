/**
 * Issue 21 through the Agent Server API: the conversation graph's state schema declares the keys a
 * caller sets, so getSchemas shows them as JSON Schema and a wrong value is a 400 naming the key.
 */
import { fileURLToPath } from "node:url";
import { createServer, type TrellisServer } from "@trellis/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const appDir = fileURLToPath(new URL("..", import.meta.url));
let server: TrellisServer;

beforeAll(async () => {
  vi.stubEnv("MARKET_ASSISTANT_SQLITE_PATH", ":memory:");
  vi.stubEnv("REDIS_URL", "");
  vi.stubEnv("MARKET_ASSISTANT_DATABASE_URL", "");
  vi.stubEnv("TRELLIS_MODEL_PROVIDER", "");
  vi.stubEnv("MARKET_ASSISTANT_MODEL_PROVIDER", "");
  server = await createServer(
    {
      graphs: { "market-assistant": { module: "./src/server-entry.ts", graph: "buildGraph" } },
      saver: { kind: "sqlite", path: ":memory:" },
      baseDir: appDir,
    },
    { env: {} },
  );
});
afterAll(async () => {
  await server?.close();
  const { defaultMarketAssistant } = await import("./server-entry.js");
  await (await defaultMarketAssistant()).close();
  vi.unstubAllEnvs();
});

async function call(path: string, body?: unknown) {
  const res = await server.app.request(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("the market assistant's typed state", () => {
  it("getSchemas shows the keys a caller sets", async () => {
    const { json } = await call("/assistants/market-assistant/schemas");
    const props = (json.input_schema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(props.max_iterations).toMatchObject({ type: "integer", minimum: 1, default: 10 });
    expect(props.conversation_transcript).toMatchObject({ type: "string", default: "" });
    // the graph's answer is not an input (issue 37): the state schema has it
    expect(props).not.toHaveProperty("outcome");
    const state = (json.state_schema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(state.outcome).toMatchObject({ enum: ["answered", "partial", "llm_error", "error"] });
  });

  it("max_iterations 0 is a 400 naming the key; no run is queued", async () => {
    const threadId = String((await call("/threads", {})).json.thread_id);
    const res = await call(`/threads/${threadId}/runs/wait`, {
      assistant_id: "market-assistant",
      input: { conversation_transcript: "user: hi", max_iterations: 0 },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: "INVALID_STATE" });
    expect(String(res.json.message)).toMatch(/"max_iterations" to 0.*a whole number, 1 or more/);
    expect((await call(`/threads/${threadId}/runs`)).json).toEqual([]);
  });
});
