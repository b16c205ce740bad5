import { RuleChatModel } from "@trellis/models";

/**
 * The model the agent uses when no provider is configured: a few rules, so the project runs offline
 * and with no API key. Set TRELLIS_MODEL_PROVIDER and TRELLIS_MODEL (see the README) to use a real one.
 */
export function offlineModel(): RuleChatModel {
  return new RuleChatModel({
    model: "offline-support",
    rules: [
      {
        name: "refund",
        when: /refund\D*(\d+)/i,
        reply: (ctx) => ({ toolCalls: [{ name: "refund_order", args: { orderId: ctx.match?.[1] ?? "" } }] }),
      },
      {
        name: "lookup",
        when: /order\D*(\d+)/i,
        reply: (ctx) => ({ toolCalls: [{ name: "lookup_order", args: { orderId: ctx.match?.[1] ?? "" } }] }),
      },
      { name: "answer", when: /./, on: "tool", reply: (ctx) => ctx.text },
    ],
    fallback:
      'I look orders up ("where is order 1002?") and refund them ("refund order 1001"); a refund waits for your approval.',
  });
}
