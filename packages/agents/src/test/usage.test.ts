import { channel } from "node:diagnostics_channel";
import {
  Command,
  END,
  interrupt,
  MemorySaver,
  MODEL_USAGE_CHANNEL,
  START,
  StateGraph,
  channel as stateChannel,
  UsageTally,
  withUsageTally,
} from "@trellis/core";
import {
  type AssistantMessage,
  MODEL_USAGE_CHANNEL as MODELS_CHANNEL,
  ScriptedChatModel,
  tool,
  userMessage,
} from "@trellis/models";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createReactAgent } from "../index.js";

const refund = tool({
  name: "issue_refund",
  description: "Refunds an order once a person approves",
  schema: z.object({ amount: z.number() }),
  fn: ({ amount }) => (interrupt<string>({ question: `Refund ${amount}?` }) === "yes" ? "refunded" : "kept"),
});

async function drain(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of events) {
    // consume
  }
}

describe("token usage of a run", () => {
  it("the models package publishes on the channel the runtime counts", () => {
    expect(MODELS_CHANNEL).toBe(MODEL_USAGE_CHANNEL);
  });

  it("counts each model call once, per node and per model, and not the calls a resume replays", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [{ name: "issue_refund", args: { amount: 20 } }],
        usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
      },
      { content: "Refunded.", usage: { inputTokens: 130, outputTokens: 5, totalTokens: 135 } },
    ]);
    const agent = createReactAgent({ model, tools: [refund], checkpointer: new MemorySaver() });
    const threadId = "t-usage";
    const first = agent.streamEvents({ messages: [userMessage("refund please")] }, { threadId });
    await drain(first);
    const paused = await first.outcome;
    expect(paused.status).toBe("interrupted");
    expect(paused.usage).toEqual({
      inputTokens: 100,
      outputTokens: 10,
      totalTokens: 110,
      calls: 1,
      byNode: { agent: { inputTokens: 100, outputTokens: 10, totalTokens: 110, calls: 1 } },
      byModel: { "scripted:scripted": { inputTokens: 100, outputTokens: 10, totalTokens: 110, calls: 1 } },
    });
    // the resume re-runs the tools node and calls the model once more; the first call is a recorded step
    const second = agent.streamEvents(new Command({ resume: "yes" }), { threadId });
    await drain(second);
    const done = await second.outcome;
    expect(done.usage).toMatchObject({ inputTokens: 130, outputTokens: 5, totalTokens: 135, calls: 1 });
    const messages = (await agent.getState({ threadId })).values.messages;
    const used = messages.flatMap((m) => ((m as AssistantMessage).usage ? [(m as AssistantMessage).usage] : []));
    expect(used.map((u) => u?.totalTokens)).toEqual([110, 135]);
  });

  it("names a subgraph's node by its path, and prices the run from a price table", async () => {
    const inner = new StateGraph({ n: stateChannel.value(0) }, { name: "inner" })
      .addNode("think", () => {
        channel(MODEL_USAGE_CHANNEL).publish({
          provider: "acme",
          model: "m1",
          usage: { inputTokens: 1_000, outputTokens: 500, totalTokens: 1_500 },
        });
        return { n: 1 };
      })
      .addEdge(START, "think")
      .addEdge("think", END)
      .compile();
    const outer = new StateGraph({ n: stateChannel.value(0) }, { name: "outer" })
      .addNode("research", inner)
      .addEdge(START, "research")
      .addEdge("research", END)
      .compile();
    const tally = new UsageTally();
    // the tally counts what runs inside it: here, the whole stream
    const outcome = await withUsageTally(tally, async () => {
      const events = outer.streamEvents({ n: 0 }, {});
      await drain(events);
      return events.outcome;
    });
    expect(outcome.usage?.byNode).toEqual({
      "research/think": { inputTokens: 1_000, outputTokens: 500, totalTokens: 1_500, calls: 1 },
    });
    expect(tally.toJSON({ m1: { input: 2, output: 8 } })).toMatchObject({
      costUsd: 0.006,
      byModel: { "acme:m1": { costUsd: 0.006 } },
    });
    // a model without a price leaves the total without a cost rather than a wrong one
    expect(tally.toJSON({ other: { input: 1, output: 1 } }).costUsd).toBeUndefined();
    expect(tally.toJSON({ "*": { input: 1, output: 1 } }).costUsd).toBe(0.0015);
  });
});
