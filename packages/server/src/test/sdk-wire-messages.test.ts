/**
 * Messages on the wire as LangChain clients read them: `type` (human, ai, tool), `tool_calls`,
 * `tool_call_id` — in the thread's state, in a run's result and in streamed values and updates, and
 * only those (no `role`, `toolCalls`, `toolCallId` beside them: `sdk-one-spelling.test.ts`).
 */
import { expect, it } from "vitest";
import { sdkServer } from "./harness.js";

const server = sdkServer();

type Wire = {
  type?: string;
  role?: string;
  tool_calls?: Array<{ id: string; name: string; args: unknown }>;
  tool_call_id?: string;
};
const shapes = (messages: Wire[]) =>
  messages.map((m) => [m.type, m.tool_calls?.map((c) => [c.id, c.name, c.args]) ?? null, m.tool_call_id ?? null]);

const EXPECTED = [
  ["human", null, null],
  ["ai", [["call-1", "lookup", { q: "weather" }]], null],
  ["tool", null, "call-1"],
  ["ai", null, null],
];

it("the thread's state, the run's result and streamed values carry LangChain's message fields", async () => {
  const thread = await server.client.threads.create();
  const streamed: Array<{ event: string; data: unknown }> = [];
  for await (const e of server.client.runs.stream(thread.thread_id, "chat", {
    input: { messages: [{ role: "user", content: "weather?" }] },
    streamMode: ["values", "updates"],
  })) {
    streamed.push(e as { event: string; data: unknown });
  }
  const lastValues = streamed.filter((e) => e.event === "values").at(-1)?.data as { messages: Wire[] };
  expect(shapes(lastValues.messages)).toEqual(EXPECTED);
  const toolUpdate = streamed.find((e) => e.event === "updates" && "tools" in (e.data as object))?.data as {
    tools: { messages: Wire[] };
  };
  expect(shapes(toolUpdate.tools.messages)).toEqual([["tool", null, "call-1"]]);

  const state = await server.client.threads.getState(thread.thread_id);
  expect(shapes((state.values as { messages: Wire[] }).messages)).toEqual(EXPECTED);
  // LangChain's fields only: the core's own spelling stays in the core
  expect((state.values as { messages: Wire[] }).messages.map((m) => m.role)).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
  const history = await server.client.threads.getHistory(thread.thread_id, { limit: 1 });
  expect(shapes((history[0]?.values as { messages?: Wire[] } | undefined)?.messages ?? [])).toEqual(EXPECTED);
});

it("a message sent as LangChain content blocks is stored as its text", async () => {
  const thread = await server.client.threads.create();
  await server.client.runs.wait(thread.thread_id, "chat", {
    input: {
      messages: [
        {
          type: "human",
          content: [
            { type: "text", text: "weather " },
            { type: "text", text: "today?" },
          ],
        },
      ],
    },
  });
  const first = (
    (await server.client.threads.getState(thread.thread_id)).values as { messages: Array<Wire & { content: unknown }> }
  ).messages[0];
  expect(first).toMatchObject({ type: "human", content: "weather today?" });
  expect(first).not.toHaveProperty("role");
});
