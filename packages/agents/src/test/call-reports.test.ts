/**
 * The model and tool calls a run's usage tally hears (`UsageTally({ onCall })`, what a server's run
 * timeline listens with): a ReAct agent's model calls with their tokens and finish reason, its tool
 * calls with how they ended, each under the task that made it — and nothing published for tool calls
 * while no tally listens.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  type CallReport,
  MemorySaver,
  StateGraph,
  channel as stateChannel,
  TOOL_CALL_CHANNEL,
  UsageTally,
  withUsageTally,
} from "@trellis/core";
import { TOOL_CALL_CHANNEL as MODELS_TOOL_CHANNEL, userMessage } from "@trellis/models";
import { describe, expect, it } from "vitest";
import { createReactAgent } from "../index.js";
import { broken, script, weather } from "./call-report-fixtures.js";

describe("the calls of a run, as its usage tally hears them", () => {
  it("tool calls publish nothing while no tally listens for calls (a plain run subscribes no tool channel)", () => {
    // in a process of its own: the subscription is the process's, and any test may have made it here
    const child = spawnSync(
      process.execPath,
      [
        "--conditions=@trellis/source",
        "--import",
        pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href,
        fileURLToPath(new URL("./fixture-plain-run.ts", import.meta.url)),
      ],
      { encoding: "utf8" },
    );
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({
      // a plain run's tally counted its two tool calls without a subscriber on the tool channel
      plain: { calls: 2, toolChannelSubscribed: false },
      // the first tally with a call listener subscribes it (so the check above can fail)
      listening: { calls: 2, toolChannelSubscribed: true },
    });
  });

  it("the models package publishes tool calls on the channel the runtime listens to", () => {
    expect(MODELS_TOOL_CHANNEL).toBe(TOOL_CALL_CHANNEL);
  });

  it("a ReAct agent's model calls (tokens, finish reason) and tool calls (ok, error), under the task that made each", async () => {
    const calls: CallReport[] = [];
    const tasks: Array<{ node: string; taskId: string }> = [];
    const agent = createReactAgent({ model: script(), tools: [weather, broken], checkpointer: new MemorySaver() });
    const tally = new UsageTally({ onCall: (c) => calls.push(c) });
    await withUsageTally(tally, async () => {
      for await (const e of agent.streamEvents(
        { messages: [userMessage("weather?")] },
        {
          threadId: "t-calls",
          streamMode: ["debug"],
        },
      )) {
        if (e.mode === "debug" && e.data.type === "task") tasks.push({ node: e.data.node, taskId: e.data.taskId });
      }
    });
    expect(tasks.map((t) => t.node)).toEqual(["agent", "tools", "agent"]);
    // the tools run side by side: their reports come in the order they end
    const label = (c: CallReport) => (c.kind === "model" ? `model ${c.model}` : `tool ${c.tool} ${c.status}`);
    expect(calls.map(label)).toHaveLength(4);
    expect(label(calls[0] as CallReport)).toBe("model m-weather");
    expect(label(calls[3] as CallReport)).toBe("model m-weather");
    expect(calls.slice(1, 3).map(label).sort()).toEqual(["tool broken error", "tool get_weather ok"]);
    const [first, , , last] = calls;
    const ok = calls.find((c) => c.kind === "tool" && c.tool === "get_weather");
    const failed = calls.find((c) => c.kind === "tool" && c.tool === "broken");
    expect(first).toMatchObject({
      kind: "model",
      provider: "scripted",
      node: "agent",
      taskId: tasks[0]?.taskId,
      rootTaskId: tasks[0]?.taskId,
      inputTokens: 100,
      outputTokens: 10,
      totalTokens: 110,
      finishReason: "tool_calls",
    });
    expect(last).toMatchObject({ taskId: tasks[2]?.taskId, totalTokens: 135, finishReason: "stop" });
    for (const c of [ok, failed]) expect(c).toMatchObject({ node: "tools", rootTaskId: tasks[1]?.taskId });
    for (const c of calls) {
      expect(c.startedAt).toBeGreaterThan(0);
      expect(c.durationMs).toBeGreaterThanOrEqual(0);
    }
    // the tally counts what the calls say they used
    expect(tally.toJSON().totalTokens).toBe(110 + 135);
    // never an argument, a result or an error text
    expect(JSON.stringify(calls)).not.toMatch(/Paris|sunny|secret-token/);
  });

  it("a subgraph's call is under the root task that ran the subgraph, named by its node's path", async () => {
    const inner = createReactAgent({ model: script(), tools: [weather, broken], name: "inner" });
    const outer = new StateGraph({ messages: stateChannel.messages() }, { name: "outer" })
      .addNode("research", inner)
      .addEdge("__start__", "research")
      .compile({ checkpointer: new MemorySaver() });
    const calls: CallReport[] = [];
    const roots: string[] = [];
    await withUsageTally(new UsageTally({ onCall: (c) => calls.push(c) }), async () => {
      for await (const e of outer.streamEvents(
        { messages: [userMessage("weather?")] },
        {
          threadId: "t-sub",
          streamMode: ["debug"],
        },
      )) {
        if (e.mode === "debug" && e.data.type === "task" && e.namespace.length === 0) roots.push(e.data.taskId);
      }
    });
    expect(roots).toHaveLength(1);
    expect(calls).toHaveLength(4);
    for (const c of calls) expect(c.rootTaskId).toBe(roots[0]);
    expect(calls[0]?.node).toBe("research/agent");
    expect(calls[1]?.node).toBe("research/tools");
  });
});
