/**
 * Issue 21: an agent network declares `activeAgent` as one of its agents' names, so a caller that
 * sets another name is refused before anything is written, and getSchemas shows the names.
 */
import { InvalidUpdateError, MemorySaver } from "@trellis/core";
import { RuleChatModel } from "@trellis/models";
import { describe, expect, it } from "vitest";
import { createAgentNetwork, createReactAgent } from "../index.js";

function network() {
  const agent = (name: string) =>
    createReactAgent({ name, model: new RuleChatModel({ rules: [{ when: /./, reply: `${name} here` }] }), tools: [] });
  return createAgentNetwork({
    agents: { general: agent("general"), reporting: agent("reporting") },
    defaultAgent: "general",
    checkpointer: new MemorySaver(),
  });
}

describe("an agent network's typed activeAgent", () => {
  it("an input naming no agent is INVALID_STATE and the thread stays empty; an agent's name is taken", async () => {
    const graph = network();
    const error = await graph
      .invoke({ messages: ["hi"], activeAgent: "nobody" }, { threadId: "n1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidUpdateError);
    expect((error as InvalidUpdateError).code).toBe("INVALID_STATE");
    expect((error as Error).message).toMatch(/"activeAgent" to "nobody".*general, reporting/);
    expect((await graph.getState({ threadId: "n1" })).checkpointId).toBeUndefined();
    const done = await graph.invoke({ messages: ["hi"], activeAgent: "reporting" }, { threadId: "n2" });
    expect(done.messages.at(-1)?.content).toBe("reporting here");
    // null (what a JSON client sends for "no agent") leaves it to the default agent
    const reset = await graph.invoke({ messages: ["hi"], activeAgent: null as never }, { threadId: "n3" });
    expect(reset.messages.at(-1)?.content).toBe("general here");
  });

  it("getSchemas lists the agents", () => {
    expect(network().getSchemas().input.properties).toMatchObject({
      activeAgent: { anyOf: [{ type: "string", enum: ["general", "reporting"] }, { type: "null" }] },
      messages: { type: "array" },
    });
  });
});
