/**
 * Stream modes LangGraph's clients subscribe to beyond values and updates: `tasks` (useStream's
 * onTaskEvent), `checkpoints` (onCheckpointEvent) and `events` (onLangChainEvent).
 */
import { expect, it } from "vitest";
import { sdkServer } from "./harness.js";

const server = sdkServer();

async function stream(modes: Array<"tasks" | "checkpoints" | "events" | "values">) {
  const thread = await server.client.threads.create();
  const events: Array<{ event: string; data: Record<string, unknown> }> = [];
  for await (const e of server.client.runs.stream(thread.thread_id, "slow", {
    input: { delayMs: 1 },
    streamMode: modes,
  })) {
    events.push(e as { event: string; data: Record<string, unknown> });
  }
  return { threadId: thread.thread_id, events };
}

it("tasks: a start and a result for each node that ran", async () => {
  const { events } = await stream(["tasks"]);
  const tasks = events.filter((e) => e.event === "tasks").map((e) => e.data);
  expect(tasks.filter((d) => !("status" in d)).map((d) => d.name)).toEqual(["a", "b", "c"]);
  const results = tasks.filter((d) => "status" in d);
  expect(results.map((d) => [d.name, d.error])).toEqual([
    ["a", null],
    ["b", null],
    ["c", null],
  ]);
  expect(events.some((e) => e.event === "debug")).toBe(false);
});

it("checkpoints: one per stored checkpoint, chained by parent_config, the last one the thread's head", async () => {
  const { threadId, events } = await stream(["checkpoints"]);
  const checkpoints = events.filter((e) => e.event === "checkpoints").map((e) => e.data);
  expect(checkpoints.length).toBeGreaterThanOrEqual(3);
  const id = (c: unknown) => (c as { configurable: { checkpoint_id: string } } | null)?.configurable.checkpoint_id;
  for (let i = 1; i < checkpoints.length; i++) {
    expect(id(checkpoints[i]?.parent_config)).toBe(id(checkpoints[i - 1]?.config));
  }
  const head = await server.client.threads.getState(threadId);
  expect(id(checkpoints.at(-1)?.config)).toBe(head.checkpoint.checkpoint_id);
  expect((checkpoints.at(-1)?.values as { log?: string[] } | undefined)?.log).toEqual(["a", "b", "c"]);
});

it("events: on_chain_start and on_chain_end for each node", async () => {
  const { events } = await stream(["events"]);
  const chain = events.filter((e) => e.event === "events").map((e) => [e.data.event, e.data.name]);
  expect(chain).toEqual([
    ["on_chain_start", "a"],
    ["on_chain_end", "a"],
    ["on_chain_start", "b"],
    ["on_chain_end", "b"],
    ["on_chain_start", "c"],
    ["on_chain_end", "c"],
  ]);
});
