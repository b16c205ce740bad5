/**
 * `compile({ onNodeError })`: a failed node's update is written as a checkpoint that keeps the failed
 * step (so the failure shows in the state) and the run still fails; continuing the thread runs what
 * failed — not the sibling that finished — and the node's own write replaces the update.
 */
import { describe, expect, it } from "vitest";
import { channel, END, MemorySaver, START, StateGraph } from "../index.js";

function build(saver: MemorySaver, behaviour: { fail: boolean; calls: string[] }) {
  return new StateGraph({
    status: channel.value("new"),
    done: channel.append<string>(),
  })
    .addNode("prepare", () => ({ status: "prepared" }))
    .addNode("sibling", () => {
      behaviour.calls.push("sibling");
      return { done: ["sibling"] };
    })
    .addNode("work", () => {
      behaviour.calls.push("work");
      if (behaviour.fail) throw new Error("the model is unreachable");
      return { status: "worked", done: ["work"] };
    })
    .addEdge(START, "prepare")
    .addEdge("prepare", "work")
    .addEdge("prepare", "sibling")
    .addEdge("work", END)
    .addEdge("sibling", END)
    .compile({
      checkpointer: saver,
      onNodeError: (error, { node, state }) => ({
        status: `error in ${node} (was ${state.status}): ${(error as Error).message}`,
      }),
    });
}

describe("compile({ onNodeError })", () => {
  it("writes the update and keeps the failed step; a continue runs only what failed and overwrites it", async () => {
    const saver = new MemorySaver();
    const behaviour = { fail: true, calls: [] as string[] };
    const graph = build(saver, behaviour);
    const config = { threadId: "t1" };
    await expect(graph.invoke({}, config)).rejects.toThrow("the model is unreachable");
    const failed = await graph.getState(config);
    expect(failed.values.status).toBe("error in work (was prepared): the model is unreachable");
    expect([...failed.next].sort()).toEqual(["sibling", "work"]);

    behaviour.fail = false;
    behaviour.calls.length = 0;
    const done = await graph.invoke(null, config);
    expect(done.status).toBe("worked");
    expect([...done.done].sort()).toEqual(["sibling", "work"]);
    // the sibling had finished in the failed step: it did not run again
    expect(behaviour.calls).toEqual(["work"]);
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("without the hook a failed step writes no state (as LangGraph)", async () => {
    const saver = new MemorySaver();
    const graph = new StateGraph({ status: channel.value("new") })
      .addNode("work", () => {
        throw new Error("boom");
      })
      .addEdge(START, "work")
      .compile({ checkpointer: saver });
    await expect(graph.invoke({}, { threadId: "t2" })).rejects.toThrow("boom");
    expect((await graph.getState({ threadId: "t2" })).values.status).toBe("new");
  });
});
