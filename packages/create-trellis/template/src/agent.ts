import { createReactAgent } from "@trellis/agents";
import { type ChatModel, chatModelFromEnv } from "@trellis/models";
import { offlineModel } from "./offline-model.js";
import type { OrderBook } from "./orders.js";
import { orderTools } from "./tools.js";

const PROMPT =
  "You are the support agent of an outdoor shop. Look orders up with lookup_order and refund them with refund_order. Answer in one or two sentences.";

/**
 * The support agent: a ReAct loop over two tools, pausing for a person's approval before each refund.
 * `trellis.json` serves it as the assistant "agent" (the server adds its saver); tests pass a scripted
 * model and a saver of their own.
 */
export function buildAgent(model: ChatModel = chatModelFromEnv({ fallback: offlineModel() }), orders?: OrderBook) {
  return createReactAgent({
    name: "support-agent",
    model,
    tools: orderTools(orders),
    prompt: PROMPT,
    // the run pauses before refund_order runs; answer with { decisions: [{ type: "approve" }] } or reject
    interruptOn: { refund_order: { allowedDecisions: ["approve", "reject"], description: "Refund this order?" } },
  });
}
