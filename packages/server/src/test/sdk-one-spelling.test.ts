/**
 * One spelling on the Agent Server API (issue 37): no message, update or interrupt value in any answer
 * the official SDK reads — streamed events of every mode (live and replayed), the thread, its state
 * (with subgraphs), its history, thread search, `runs.wait` and `runs.join` — carries Trellis's own
 * spelling or two spellings of one field: no `role` (messages are LangChain's, by `type`), no
 * `toolCalls`/`toolCallId`/`usage`, no `actionRequests`/`reviewConfigs`, and no object holding a
 * camelCase key beside its snake_case twin.
 */
import { resolve } from "node:path";
import { expect, it } from "vitest";
import { PACKAGE_DIR, sdkServer, TEST_GRAPHS } from "./harness.js";

const server = sdkServer({
  graphs: { ...TEST_GRAPHS, wire: { module: resolve(PACKAGE_DIR, "src/test/fixture-wire.ts"), graph: "wireGraph" } },
});

const TRELLIS_KEYS = new Set([
  "toolCalls",
  "toolCallId",
  "actionRequests",
  "reviewConfigs",
  "actionName",
  "allowedDecisions",
]);
const ROLES = new Set(["user", "assistant", "system", "tool"]);
const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Every place in `value` that speaks Trellis's spelling or spells a field twice, as `where: why`. */
function doubleSpellings(value: unknown, where: string, out: string[] = []): string[] {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      doubleSpellings(v, `${where}[${i}]`, out);
    });
    return out;
  }
  if (typeof value !== "object" || value === null) return out;
  const o = value as Record<string, unknown>;
  if (typeof o.role === "string" && ROLES.has(o.role) && "content" in o) out.push(`${where}: a message with "role"`);
  if (typeof o.type === "string" && "content" in o && typeof o.usage === "object") out.push(`${where}: "usage"`);
  for (const key of Object.keys(o)) {
    if (TRELLIS_KEYS.has(key)) out.push(`${where}: "${key}"`);
    else if (snake(key) !== key && snake(key) in o) out.push(`${where}: "${key}" beside "${snake(key)}"`);
    doubleSpellings(o[key], `${where}.${key}`, out);
  }
  return out;
}

const ALL_MODES = [
  "values",
  "updates",
  "messages",
  "messages-tuple",
  "custom",
  "debug",
  "events",
  "tasks",
  "checkpoints",
] as const;

it("every answer and stream event speaks LangGraph's message and HITL shapes only", async () => {
  const { client } = server;
  const found: string[] = [];
  const check = (value: unknown, where: string) => doubleSpellings(value, where, found);

  const thread = await client.threads.create();
  const events: Array<{ event: string; data: unknown }> = [];
  let runId = "";
  for await (const e of client.runs.stream(thread.thread_id, "wire", {
    input: { messages: [{ type: "human", content: "weather?" }] },
    streamMode: [...ALL_MODES],
    streamSubgraphs: true,
  })) {
    events.push(e as { event: string; data: unknown });
    if (e.event === "metadata") runId = (e.data as { run_id: string }).run_id;
  }
  // the stream had what must be translated: a message with tool calls, a pause, subgraph events
  const seen = new Set(events.map((e) => e.event.split("|")[0]));
  for (const mode of ["values", "updates", "messages", "custom", "debug", "events", "tasks", "checkpoints"]) {
    expect(seen, mode).toContain(mode);
  }
  expect(events.some((e) => e.event.includes("|"))).toBe(true);
  events.forEach((e, i) => {
    check(e.data, `stream #${i} ${e.event}`);
  });
  const last = events.filter((e) => e.event === "values").at(-1)?.data as {
    messages: Array<Record<string, unknown>>;
    __interrupt__: Array<{ value: Record<string, unknown> }>;
  };
  expect.soft(last.messages.map((m) => m.type)).toEqual(["human", "ai", "tool"]);
  expect.soft(last.messages[1]).toMatchObject({
    tool_calls: [{ id: "call-1", name: "lookup", args: { q: "weather" }, type: "tool_call" }],
    usage_metadata: { input_tokens: 12, output_tokens: 5, total_tokens: 17, input_token_details: { cache_read: 4 } },
  });
  expect.soft(last.messages[2]).toMatchObject({ type: "tool", tool_call_id: "call-1" });
  expect.soft(last.__interrupt__[0]?.value).toEqual({
    action_requests: [
      {
        name: "send",
        args: { message: expect.objectContaining({ type: "tool", tool_call_id: "call-1" }) },
        description: "Send this reply?",
      },
    ],
    review_configs: [{ action_name: "send", allowed_decisions: ["approve", "reject"] }],
  });

  for await (const e of client.runs.joinStream(thread.thread_id, runId, { streamMode: [...ALL_MODES] })) {
    check(e.data, `replayed ${e.event}`);
  }
  check(await client.threads.get(thread.thread_id), "thread");
  check(await client.threads.search({ limit: 10 }), "thread search");
  check(await client.threads.getState(thread.thread_id), "state");
  check(await client.threads.getState(thread.thread_id, undefined, { subgraphs: true }), "state with subgraphs");
  check(await client.threads.getHistory(thread.thread_id, { limit: 20 }), "history");
  check(await client.runs.join(thread.thread_id, runId), "join");

  const done = await client.runs.wait(thread.thread_id, "wire", {
    command: { resume: { decisions: [{ type: "approve" }] } },
  });
  check(done, "wait (resumed)");
  expect((done as { messages: unknown[] }).messages).toHaveLength(4);

  const paused = await client.runs.wait(null, "wire", { input: { messages: [{ role: "user", content: "again?" }] } });
  check(paused, "stateless wait (paused)");
  expect((paused as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);

  expect(found).toEqual([]);
});
