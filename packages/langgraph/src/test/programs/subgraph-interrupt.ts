import type { Modules } from "./modules.js";

/** A parent graph whose subgraph pauses for a name, resumed by `Command({ resume })`. */
export async function subgraphInterrupt({ lg }: Modules): Promise<unknown> {
  const { Annotation, StateGraph, START, END, MemorySaver, Command, interrupt } = lg;
  const State = Annotation.Root({
    greeting: Annotation<string>(),
    name: Annotation<string>(),
    trail: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  const child = new StateGraph(State)
    .addNode("ask", () => {
      const name = interrupt<{ question: string }, string>({ question: "Who is there?" });
      return { name, trail: [`asked and got ${name}`] };
    })
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile();
  const parent = new StateGraph(State)
    .addNode("prepare", () => ({ trail: ["prepared"] }))
    .addNode("child", child)
    .addNode("greet", (state) => ({ greeting: `Hello, ${state.name}!`, trail: ["greeted"] }))
    .addEdge(START, "prepare")
    .addEdge("prepare", "child")
    .addEdge("child", "greet")
    .addEdge("greet", END)
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "door" } };
  const paused = await parent.invoke({ trail: ["start"] }, config);
  const state = await parent.getState(config);
  const waiting = { next: state.next, interrupts: state.tasks.flatMap((t) => t.interrupts.map((i) => i.value)) };
  const done = await parent.invoke(new Command({ resume: "Ada" }), config);
  const after = await parent.getState(config);
  return { paused, waiting, done, afterNext: after.next };
}
