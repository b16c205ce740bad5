/** An order as the tools see it. */
export interface Order {
  item: string;
  total: number;
  status: "shipped" | "delivered" | "refunded";
}

/**
 * The orders the tools work on. A stand-in for your database or API: replace it, and keep the tools'
 * names and arguments.
 */
export class OrderBook {
  readonly #orders = new Map<string, Order>([
    ["1001", { item: "Trail running shoes", total: 129.9, status: "delivered" }],
    ["1002", { item: "Rain jacket", total: 89.0, status: "shipped" }],
  ]);

  get(orderId: string): Order | undefined {
    return this.#orders.get(orderId);
  }

  refund(orderId: string): Order | undefined {
    const order = this.#orders.get(orderId);
    if (order) order.status = "refunded";
    return order;
  }
}
