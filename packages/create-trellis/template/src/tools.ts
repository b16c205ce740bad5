import { type Tool, tool } from "@trellis/models";
import { z } from "zod";
import { OrderBook } from "./orders.js";

/** The agent's tools over an order book: `lookup_order` runs at once, `refund_order` after an approval. */
export function orderTools(orders = new OrderBook()): Tool[] {
  const lookupOrder = tool({
    name: "lookup_order",
    description: "Look an order up by its number: the item, the total and where it stands.",
    schema: z.object({ orderId: z.string().describe("The order number, e.g. 1001") }),
    fn: ({ orderId }) => {
      const order = orders.get(orderId);
      return order
        ? `Order ${orderId}: ${order.item}, ${order.total.toFixed(2)} EUR, ${order.status}.`
        : `There is no order ${orderId}.`;
    },
  });
  const refundOrder = tool({
    name: "refund_order",
    description: "Refund an order in full. A person approves each refund before it is made.",
    schema: z.object({ orderId: z.string().describe("The order number to refund") }),
    fn: ({ orderId }) => {
      const order = orders.refund(orderId);
      return order ? `Refunded ${order.total.toFixed(2)} EUR for order ${orderId}.` : `There is no order ${orderId}.`;
    },
  });
  return [lookupOrder, refundOrder] as Tool[];
}
