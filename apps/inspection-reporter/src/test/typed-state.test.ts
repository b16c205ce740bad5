/**
 * Issue 21 over the Agent Server API: the inspection graph's state is an agent network's, whose
 * `activeAgent` is declared as one of the five agents — getSchemas lists them, and an input naming
 * another agent is a 400 naming the key, nothing written.
 */
import { describe, expect, it } from "vitest";
import { servedInspectionApp } from "./served-app.js";

const app = servedInspectionApp("inspection-typed-");

async function call(path: string, body?: unknown) {
  const res = await fetch(`${app.server.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("the inspection graph's typed state", () => {
  it("getSchemas lists the agents activeAgent may name, and messages as a list", async () => {
    const { json } = await call("/assistants/inspection-reporter/schemas");
    const props = (json.input_schema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(props.activeAgent).toMatchObject({
      anyOf: [{ type: "string", enum: expect.arrayContaining(["general-agent", "reporting-agent"]) }, { type: "null" }],
    });
    expect(props.messages).toMatchObject({ type: "array" });
  });

  it("an input naming no agent is a 400 naming activeAgent; the thread stays empty", async () => {
    const threadId = String((await call("/threads", {})).json.thread_id);
    const res = await call(`/threads/${threadId}/runs/wait`, {
      assistant_id: "inspection-reporter",
      input: { messages: [{ role: "user", content: "Hallo" }], activeAgent: "nobody" },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: "INVALID_STATE" });
    expect(String(res.json.message)).toMatch(/"activeAgent" to "nobody".*must be one of the agents/);
    expect((await call(`/threads/${threadId}/runs`)).json).toEqual([]);
  });
});
