/**
 * Tool calls that wait for a person (`interruptOn`): one interrupt per batch in LangChain's
 * human-in-the-loop shape, answered with approve, edit, reject or respond decisions.
 */
import { Command, MemorySaver } from "@trellis/core";
import { RuleChatModel, tool, userMessage } from "@trellis/models";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createReactAgent, type ToolReviewRequest } from "../index.js";

function emailAgent() {
  const sent: Array<{ to: string; body: string }> = [];
  const lookups: string[] = [];
  const sendEmail = tool({
    name: "send_email",
    description: "Send an email",
    schema: z.object({ to: z.string(), body: z.string() }),
    fn: (args) => {
      sent.push(args);
      return `sent to ${args.to}`;
    },
  });
  const lookup = tool({
    name: "lookup",
    description: "Find an address",
    schema: z.object({ name: z.string() }),
    fn: ({ name }) => {
      lookups.push(name);
      return `${name.toLowerCase()}@example.com`;
    },
  });
  const model = new RuleChatModel({
    rules: [
      {
        name: "mail",
        when: /mail (\w+)/i,
        reply: (ctx) => ({
          content: "",
          toolCalls: [
            { name: "lookup", args: { name: ctx.match?.[1] } },
            { name: "send_email", args: { to: `${ctx.match?.[1]}@example.com`, body: "Hello" } },
          ],
        }),
      },
      { name: "done", on: "tool", when: /./, reply: (ctx) => ctx.toolResults.map((t) => t.content).join("; ") },
    ],
  });
  const agent = createReactAgent({
    model,
    tools: [lookup, sendEmail],
    checkpointer: new MemorySaver(),
    interruptOn: { send_email: { allowedDecisions: ["approve", "edit", "reject"] } },
  });
  return { agent, sent, lookups };
}

describe("interruptOn", () => {
  it("pauses before the reviewed call in LangChain's shape (both spellings); nothing runs until decided", async () => {
    const { agent, sent, lookups } = emailAgent();
    const paused = await agent.invoke({ messages: [userMessage("mail Ana")] }, { threadId: "t1" });
    const request = paused.__interrupt__?.[0]?.value as ToolReviewRequest;
    expect(request.actionRequests).toEqual([
      { name: "send_email", args: { to: "Ana@example.com", body: "Hello" }, description: expect.any(String) },
    ]);
    expect(request.action_requests).toEqual(request.actionRequests);
    expect(request.reviewConfigs).toEqual([
      { actionName: "send_email", allowedDecisions: ["approve", "edit", "reject"] },
    ]);
    expect(request.review_configs).toEqual([
      { action_name: "send_email", allowed_decisions: ["approve", "edit", "reject"] },
    ]);
    expect(sent).toEqual([]);
    expect(lookups).toEqual([]);
  });

  it("edit runs the call with the person's arguments; the unreviewed call runs once", async () => {
    const { agent, sent, lookups } = emailAgent();
    const config = { threadId: "t2" };
    await agent.invoke({ messages: [userMessage("mail Ana")] }, config);
    const done = await agent.invoke(
      new Command({
        resume: {
          decisions: [
            { type: "edit", editedAction: { name: "send_email", args: { to: "ana@corp.example", body: "Hi" } } },
          ],
        },
      }),
      config,
    );
    expect(sent).toEqual([{ to: "ana@corp.example", body: "Hi" }]);
    expect(lookups).toEqual(["Ana"]);
    expect(done.messages.at(-1)?.content).toMatch(/sent to ana@corp.example/);
  });

  it("reject answers the call with the person's message and never runs it", async () => {
    const { agent, sent } = emailAgent();
    const config = { threadId: "t3" };
    await agent.invoke({ messages: [userMessage("mail Ana")] }, config);
    const done = await agent.invoke(
      new Command({ resume: { decisions: [{ type: "reject", message: "not to Ana" }] } }),
      config,
    );
    expect(sent).toEqual([]);
    const reply = done.messages.find((m) => m.role === "tool" && m.content === "not to Ana");
    expect(reply).toBeDefined();
  });

  it("a decision that is not allowed is refused", async () => {
    const { agent, sent } = emailAgent();
    const config = { threadId: "t4" };
    await agent.invoke({ messages: [userMessage("mail Ana")] }, config);
    await expect(
      agent.invoke(new Command({ resume: { decisions: [{ type: "respond", message: "x" }] } }), config),
    ).rejects.toThrow(/not one of approve, edit, reject/);
    expect(sent).toEqual([]);
  });
});
