/**
 * The graph the useStream chat page talks to: a ReAct agent on the offline rule model that looks an
 * address up and sends an email, the send waiting for a person's decision (LangChain's HITL shape).
 */
import { createReactAgent } from "@trellis/agents";
import { RuleChatModel, tool } from "@trellis/models";
import * as z from "zod";

const lookup = tool({
  name: "lookup",
  description: "Find a person's email address",
  schema: z.object({ name: z.string() }),
  fn: ({ name }) => `${name.toLowerCase()}@example.com`,
});

const sendEmail = tool({
  name: "send_email",
  description: "Send an email",
  schema: z.object({ to: z.string(), body: z.string() }),
  fn: ({ to }) => `Email sent to ${to}.`,
});

/** A fresh agent (the server gives it its saver). */
export function emailAgent() {
  return createReactAgent({
    name: "email-agent",
    model: new RuleChatModel({
      rules: [
        {
          name: "mail",
          when: /mail (\w+)/i,
          reply: (ctx) => ({
            content: "",
            toolCalls: [{ name: "send_email", args: { to: `${ctx.match?.[1]}@example.com`, body: "Hello!" } }],
          }),
        },
        { name: "done", on: "tool", when: /./, reply: (ctx) => ctx.toolResults.map((t) => t.content).join(" ") },
      ],
    }),
    tools: [lookup, sendEmail],
    interruptOn: { send_email: { allowedDecisions: ["approve", "reject"] } },
  });
}
