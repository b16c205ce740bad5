import type { Modules } from "./modules.js";

/** Fans a list of topics out to one `write` task each with `Send`, then joins their drafts. */
export async function mapReduce({ lg }: Modules): Promise<unknown> {
  const { Annotation, StateGraph, START, END, Send } = lg;
  const State = Annotation.Root({
    subject: Annotation<string>(),
    topics: Annotation<string[]>(),
    drafts: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    summary: Annotation<string>(),
  });
  const graph = new StateGraph(State)
    .addNode("plan", (state) => ({ topics: ["roots", "leaves", "bark"].map((t) => `${state.subject} ${t}`) }))
    .addNode("write", (input: { topic: string }) => ({ drafts: [`a note on ${input.topic}`] }))
    .addNode("summarize", (state) => ({
      summary: `${state.drafts.length} notes: ${[...state.drafts].sort().join("; ")}`,
    }))
    .addEdge(START, "plan")
    .addConditionalEdges("plan", (state) => state.topics.map((topic) => new Send("write", { topic })), ["write"])
    .addEdge("write", "summarize")
    .addEdge("summarize", END)
    .compile();
  const result = await graph.invoke({ subject: "oak" });
  return { ...result, drafts: [...result.drafts].sort() };
}
