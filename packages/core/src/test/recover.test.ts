/**
 * `recover: true`: continuing a run whose process died keeps the pause the run had reached — a
 * breakpoint before or after a node, a pending interrupt — where a plain `invoke(null)` runs past it.
 */
import { describe, expect, it } from "vitest";
import { Command, channel, interrupt, MemorySaver, START, StateGraph } from "../index.js";

function chain(options: { interruptBefore?: string[]; interruptAfter?: string[] } = {}) {
  const ran: string[] = [];
  const node = (name: string) => () => {
    ran.push(name);
    return { log: [name] };
  };
  const graph = new StateGraph({ log: channel.append<string>(), answer: channel.value("") })
    .addNode("a", node("a"))
    .addNode("ask", () => {
      ran.push("ask");
      return { answer: interrupt<string>("ok?") };
    })
    .addNode("b", node("b"))
    .addEdge(START, "a")
    .addEdge("a", "ask")
    .addEdge("ask", "b")
    .compile({ checkpointer: new MemorySaver(), ...options });
  return { graph, ran };
}

describe("recover: a crashed run's pause is kept", () => {
  it("a breakpoint before a node: recover stops there, invoke(null) would run it", async () => {
    const { graph, ran } = chain({ interruptBefore: ["a"] });
    const config = { threadId: "before" };
    await graph.invoke({}, config); // paused before a (the input's checkpoint)
    expect(ran).toEqual([]);
    const outcome = await graph.invoke(null, { ...config, recover: true });
    expect(ran).toEqual([]);
    expect(outcome).toEqual({ log: [], answer: "" });
    expect((await graph.getState(config)).next).toEqual(["a"]);
  });

  it("a breakpoint after a node: recover stops there", async () => {
    const { graph, ran } = chain({ interruptAfter: ["a"] });
    const config = { threadId: "after" };
    await graph.invoke({}, config);
    expect(ran).toEqual(["a"]);
    await graph.invoke(null, { ...config, recover: true });
    expect(ran).toEqual(["a"]);
    expect((await graph.getState(config)).next).toEqual(["ask"]);
  });

  it("a pending interrupt: recover does not run the node again", async () => {
    const { graph, ran } = chain();
    const config = { threadId: "interrupt" };
    await graph.invoke({}, config);
    expect(ran).toEqual(["a", "ask"]);
    const again = await graph.invoke(null, { ...config, recover: true });
    expect(ran).toEqual(["a", "ask"]);
    expect(again.__interrupt__?.map((i) => i.value)).toEqual(["ok?"]);
    // answered, the run goes on as usual
    await graph.invoke(new Command({ resume: "yes" }), config);
    expect(ran).toEqual(["a", "ask", "ask", "b"]);
  });

  it("a head that is no pause: recover continues like invoke(null)", async () => {
    const { graph, ran } = chain();
    const config = { threadId: "mid" };
    // a run stopped after a (here by a per-run breakpoint; in a crash, by the kill) ...
    await graph.invoke({}, { ...config, interruptAfter: ["a"] });
    expect(ran).toEqual(["a"]);
    // ... is continued by a recovered attempt whose config has no such pause
    await graph.invoke(null, { ...config, recover: true });
    expect(ran).toEqual(["a", "ask"]);
  });

  it("after the resume that answered it, the next breakpoint is kept", async () => {
    const { graph, ran } = chain({ interruptBefore: ["b"] });
    const config = { threadId: "resumed" };
    await graph.invoke({}, config);
    await graph.invoke(new Command({ resume: "yes" }), config); // ask answered, paused before b
    expect(ran).toEqual(["a", "ask", "ask"]);
    await graph.invoke(null, { ...config, recover: true });
    expect(ran).toEqual(["a", "ask", "ask"]);
    await graph.invoke(null, config);
    expect(ran).toEqual(["a", "ask", "ask", "b"]);
  });

  it("a checkpoint written by an update command is run past, as the command's run did", async () => {
    const { graph, ran } = chain({ interruptBefore: ["ask"] });
    const config = { threadId: "update" };
    await graph.invoke({}, config); // a ran, paused before ask
    await graph.updateState(config, { log: ["edited"] });
    // the update's checkpoint is where a Command({ update }) run starts running: recover goes on too
    await graph.invoke(null, { ...config, recover: true });
    expect(ran).toEqual(["a", "ask"]);
  });
});
