import { describe, expect, it } from "vitest";
import { channel, getNodeContext, START, StateGraph } from "../index.js";

function whoGraph() {
  const child = new StateGraph({ inner: channel.value<unknown>("unset") })
    .addNode("read", (_s, ctx) => ({ inner: ctx.user }))
    .addEdge(START, "read")
    .compile();
  return new StateGraph({
    outer: channel.value<unknown>("unset"),
    tool: channel.value<unknown>("unset"),
    inner: channel.value<unknown>("unset"),
  })
    .addNode("read", (_s, ctx) => ({ outer: ctx.user, tool: getNodeContext().user }))
    .addNode("child", child)
    .addEdge(START, "read")
    .addEdge("read", "child")
    .compile();
}

describe("ctx.user", () => {
  it("is the run config's user, in a node, in code the node calls, and in a subgraph", async () => {
    const out = await whoGraph().invoke({}, { user: { id: "alice" } });
    expect(out).toMatchObject({ outer: { id: "alice" }, tool: { id: "alice" }, inner: { id: "alice" } });
  });

  it("is null without one: a thread id or a configurable user_id is never a user", async () => {
    const out = await whoGraph().invoke({}, { configurable: { user_id: "alice" } });
    expect(out).toMatchObject({ outer: null, tool: null, inner: null });
  });
});
