import { Command, MemorySaver } from "@trellis/core";
import { ScriptedChatModel, userMessage } from "@trellis/models";
import { describe, expect, it } from "vitest";
import { buildAgent } from "../src/agent.js";
import { offlineModel } from "../src/offline-model.js";
import { OrderBook } from "../src/orders.js";

const refundCall = { toolCalls: [{ name: "refund_order", args: { orderId: "1001" } }] };

describe("support agent", () => {
  it("pauses before a refund and refunds once a person approves", async () => {
    const orders = new OrderBook();
    const model = new ScriptedChatModel([refundCall, "Order 1001 is refunded."]);
    const agent = buildAgent(model, orders).withCheckpointer(new MemorySaver());
    const config = { threadId: "approve" };

    const paused = await agent.invoke({ messages: [userMessage("Please refund order 1001")] }, config);
    expect(paused.__interrupt__?.[0]?.value).toMatchObject({
      actionRequests: [{ name: "refund_order", args: { orderId: "1001" } }],
    });
    expect(orders.get("1001")?.status).toBe("delivered");

    const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect(done.messages.at(-2)).toMatchObject({ role: "tool", content: "Refunded 129.90 EUR for order 1001." });
    expect(done.messages.at(-1)?.content).toBe("Order 1001 is refunded.");
    expect(orders.get("1001")?.status).toBe("refunded");
  });

  it("does not refund when the reviewer rejects", async () => {
    const orders = new OrderBook();
    const model = new ScriptedChatModel([refundCall, "Understood, no refund."]);
    const agent = buildAgent(model, orders).withCheckpointer(new MemorySaver());
    const config = { threadId: "reject" };

    await agent.invoke({ messages: [userMessage("Refund order 1001")] }, config);
    const done = await agent.invoke(
      new Command({ resume: { decisions: [{ type: "reject", message: "Not eligible." }] } }),
      config,
    );
    expect(done.messages.at(-2)).toMatchObject({ role: "tool", content: "Not eligible." });
    expect(orders.get("1001")?.status).toBe("delivered");
  });

  it("runs offline on its rule model: a lookup needs no approval", async () => {
    const agent = buildAgent(offlineModel()).withCheckpointer(new MemorySaver());
    const done = await agent.invoke({ messages: [userMessage("Where is order 1002?")] }, { threadId: "lookup" });
    expect(done.__interrupt__).toBeUndefined();
    expect(done.messages.at(-1)?.content).toBe("Order 1002: Rain jacket, 89.00 EUR, shipped.");
  });
});
