/**
 * The differences docs/porting-from-langgraphjs.md lists that a side-by-side program cannot show as
 * equal results: each test runs the same program on both modules and asserts what each one does.
 */
import * as LangGraph from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import * as Trellis from "../index.js";

const lgModule = LangGraph;
const trellisModule = Trellis as unknown as typeof LangGraph;

/** Two parallel branches; the router after `left` reads what `right` wrote in the same superstep. */
function parallelRouterGraph(lg: typeof LangGraph) {
  const State = lg.Annotation.Root({
    left: lg.Annotation<string>(),
    right: lg.Annotation<string>(),
    routed: lg.Annotation<string>(),
  });
  return new lg.StateGraph(State)
    .addNode("writeLeft", () => ({ left: "L" }))
    .addNode("writeRight", () => ({ right: "R" }))
    .addNode("sawRight", () => ({ routed: "router saw right's write" }))
    .addNode("sawNothing", () => ({ routed: "router saw only left's write" }))
    .addEdge(lg.START, "writeLeft")
    .addEdge(lg.START, "writeRight")
    .addConditionalEdges("writeLeft", (state) => (state.right === "R" ? "sawRight" : "sawNothing"), [
      "sawRight",
      "sawNothing",
    ])
    .addEdge("sawRight", lg.END)
    .addEdge("sawNothing", lg.END)
    .addEdge("writeRight", lg.END)
    .compile();
}

describe("differences from LangGraph.js, as the porting guide lists them", () => {
  it("routers after the whole superstep: a router sees the writes of every node of its step", async () => {
    const lgResult = await parallelRouterGraph(lgModule).invoke({});
    const trellisResult = await parallelRouterGraph(trellisModule).invoke({});
    expect(lgResult.routed).toBe("router saw only left's write");
    expect(trellisResult.routed).toBe("router saw right's write");
  });

  it("THREAD_BUSY: a second run on a thread that is running is refused, where LangGraph.js runs both", async () => {
    const build = (lg: typeof LangGraph) => {
      const State = lg.Annotation.Root({ n: lg.Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });
      return new lg.StateGraph(State)
        .addNode("slow", async () => {
          await new Promise((r) => setTimeout(r, 50));
          return { n: 1 };
        })
        .addEdge(lg.START, "slow")
        .addEdge("slow", lg.END)
        .compile({ checkpointer: new lg.MemorySaver() });
    };
    const config = { configurable: { thread_id: "busy" } };
    const lgGraph = build(lgModule);
    const lgBoth = await Promise.allSettled([lgGraph.invoke({}, config), lgGraph.invoke({}, config)]);
    expect(lgBoth.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    const graph = build(trellisModule);
    const both = await Promise.allSettled([graph.invoke({}, config), graph.invoke({}, config)]);
    expect(both.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = both.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: "THREAD_BUSY" });
  });

  it("plain data: a class instance other than a LangChain message in the state is refused, naming the key", async () => {
    const build = (lg: typeof LangGraph) => {
      const State = lg.Annotation.Root({ link: lg.Annotation<URL>() });
      return new lg.StateGraph(State)
        .addNode("store", () => ({ link: new URL("https://example.com/a") }))
        .addEdge(lg.START, "store")
        .addEdge("store", lg.END)
        .compile();
    };
    expect((await build(lgModule).invoke({})).link).toBeInstanceOf(URL);
    await expect(build(trellisModule).invoke({})).rejects.toMatchObject({ code: "NOT_PLAIN_DATA" });
  });

  it("a node named like a state key is refused, as LangGraph.js refuses it", () => {
    for (const lg of [lgModule, trellisModule]) {
      const State = lg.Annotation.Root({ topic: lg.Annotation<string>() });
      const build = () =>
        new lg.StateGraph(State)
          .addNode("topic", () => ({}))
          .addEdge(lg.START, "topic")
          .compile();
      expect(build).toThrow(/topic is already being used as a state attribute/);
    }
  });

  it("savers: LangGraph.js's own checkpoint savers are refused at compile, saying what to use", () => {
    const State = Trellis.Annotation.Root({ x: Trellis.Annotation<number>() });
    const builder = new Trellis.StateGraph(State).addNode("a", () => ({})).addEdge(Trellis.START, "a");
    expect(() => builder.compile({ checkpointer: new LangGraph.MemorySaver() as never })).toThrow(
      /one of LangGraph\.js's own savers.*MemorySaver from @trellis\/langgraph/,
    );
  });
});
