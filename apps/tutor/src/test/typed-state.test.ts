/**
 * Issue 21 through the Agent Server API: the tutor's state schema declares the keys a caller sets
 * (`asignatura`, `topic`, `num_questions`, `difficulty`, `query_difficulty`, `current_question_index`),
 * so getSchemas shows them as JSON Schema and a wrong value is a 400 naming the key, nothing written.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, type TrellisServer } from "@trellis/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const dir = mkdtempSync(join(tmpdir(), "tutor-typed-"));
let server: TrellisServer;

beforeAll(async () => {
  vi.stubEnv("TUTOR_DB_PATH", join(dir, "guides.sqlite"));
  vi.stubEnv("LLM_PROVIDER", "offline");
  vi.stubEnv("RAG_URL", "");
  server = await createServer(
    {
      graphs: { tutor: { module: "./src/server-entry.ts", graph: "buildGraph", name: "Tutor" } },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      baseDir: APP_DIR,
    },
    { env: {}, workers: 1 },
  );
});
afterAll(async () => {
  await server?.close();
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

async function call(path: string, body?: unknown) {
  const res = await server.app.request(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("the tutor's typed state", () => {
  it("getSchemas shows the keys a caller sets", async () => {
    const { json } = await call("/assistants/tutor/schemas");
    const props = (json.input_schema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(props.num_questions).toMatchObject({
      anyOf: [{ type: "integer", minimum: 1, maximum: 10 }, { type: "null" }],
    });
    expect(props.query_difficulty).toMatchObject({
      anyOf: [{ type: "string", enum: ["basic", "intermediate", "advanced"] }, { type: "null" }],
    });
    expect(props.current_question_index).toMatchObject({ type: "integer", minimum: 0, default: 0 });
    // the test, its answers and scores are the graph's own, not inputs (issue 37)
    for (const key of ["questions", "user_answers", "scores", "feedback_history", "thinking", "pending_feedback"]) {
      expect(props).not.toHaveProperty(key);
    }
  });

  it("num_questions 'five' is a 400 naming the key; the thread stays empty", async () => {
    const thread = await call("/threads", {});
    const threadId = String(thread.json.thread_id);
    const res = await call(`/threads/${threadId}/runs/wait`, {
      assistant_id: "tutor",
      input: { messages: [{ role: "user", content: "Hazme un test" }], asignatura: "DS", num_questions: "five" },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: "INVALID_STATE" });
    expect(String(res.json.message)).toMatch(/"num_questions" to "five".*whole number from 1 to 10/);
    expect((await call(`/threads/${threadId}/runs`)).json).toEqual([]);
  });
});
