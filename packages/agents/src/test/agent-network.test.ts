import { Command, interrupt, MemorySaver } from "@trellis/core";
import { type Message, RuleChatModel, tool, userMessage } from "@trellis/models";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createAgentNetwork, createHandoffTool, createReactAgent } from "../index.js";

describe("agent networks with handoffs", () => {
  function network(saver: MemorySaver) {
    const general = createReactAgent({
      name: "general-agent",
      model: new RuleChatModel({
        rules: [
          { when: /report/i, reply: { toolCalls: [{ name: "transfer_to_reporting", args: {} }] } },
          { when: /./, reply: "General: how can I help?" },
        ],
      }),
      tools: [createHandoffTool("reporting-agent")],
    });
    const clarify = tool({
      name: "request_clarification",
      description: "Ask the user questions",
      schema: z.object({ questions: z.array(z.string()) }),
      fn: ({ questions }) => interrupt<string>({ type: "clarification_request", questions }),
    });
    const reporting = createReactAgent({
      name: "reporting-agent",
      model: new RuleChatModel({
        rules: [
          {
            when: (ctx) => ctx.toolResults.some((t) => t.name === "request_clarification"),
            reply: (ctx) => `Report written with: ${ctx.toolResults[0]?.content}`,
          },
          {
            when: () => true,
            reply: { toolCalls: [{ name: "request_clarification", args: { questions: ["Address?"] } }] },
          },
        ],
      }),
      tools: [clarify],
    });
    return createAgentNetwork({
      agents: { "general-agent": general, "reporting-agent": reporting },
      defaultAgent: "general-agent",
      checkpointer: saver,
    });
  }

  it("hands off, pauses in the specialist's tool, and the reply resumes that specialist", async () => {
    const graph = network(new MemorySaver());
    const config = { threadId: "net" };
    const paused = await graph.invoke({ messages: [userMessage("Make an inspection report")] }, config);
    expect(paused.activeAgent).toBe("reporting-agent");
    expect(paused.__interrupt__?.[0]?.value).toEqual({ type: "clarification_request", questions: ["Address?"] });
    const done = await graph.invoke(new Command({ resume: "Hoofdstraat 2" }), config);
    expect(done.messages.at(-1)?.content).toBe("Report written with: Hoofdstraat 2");
    const roles = done.messages.map((m: Message) => m.role);
    expect(roles[0]).toBe("user");
    expect(
      done.messages.some((m) => m.role === "tool" && String(m.content).includes("Transferred to reporting-agent")),
    ).toBe(true);
    const next = await graph.invoke({ messages: [userMessage("Another one")] }, config);
    expect(next.__interrupt__?.[0]?.value).toMatchObject({ type: "clarification_request" });
  });
});
