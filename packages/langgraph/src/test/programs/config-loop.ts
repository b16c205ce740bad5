import type { Modules } from "./modules.js";

/**
 * A loop whose router reads `config.configurable`: it stops after `max_rounds` rounds, and its node
 * reads the caller's name from the config too.
 */
export async function configLoop({ lg }: Modules): Promise<unknown> {
  const { Annotation, StateGraph, START, END } = lg;
  const State = Annotation.Root({
    rounds: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
    log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    undeclaredIgnored: Annotation<string>(),
  });
  const graph = new StateGraph(State)
    .addNode("work", (state, config) => ({
      rounds: 1,
      log: [`round ${state.rounds + 1} for ${String(config.configurable?.user)}`],
      notInSchema: "dropped",
    }))
    .addEdge(START, "work")
    .addConditionalEdges("work", (state, config) =>
      state.rounds >= Number(config?.configurable?.max_rounds ?? 6) ? END : "work",
    )
    .compile();
  const short = await graph.invoke({}, { configurable: { max_rounds: 2, user: "ana" } });
  const long = await graph.invoke({ rounds: 1 }, { configurable: { user: "bo" } });
  const bound = await graph.withConfig({ configurable: { max_rounds: 3, user: "cy" } }).invoke({});
  const batch = await graph.batch([{}, { rounds: 4 }], { configurable: { max_rounds: 5, user: "di" } });
  return { short, long, bound, batch };
}
