import type { Modules } from "./modules.js";

/**
 * Time travel: the thread's snapshots (next nodes, step, source, parent links), an `updateState` as a
 * node, a replay from an earlier checkpoint.
 */
export async function history({ lg }: Modules): Promise<unknown> {
  const { Annotation, StateGraph, START, END, MemorySaver } = lg;
  const State = Annotation.Root({
    text: Annotation<string>(),
    edits: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
  });
  const graph = new StateGraph(State)
    .addNode("draft", (state) => ({ text: `draft of ${state.text}`, edits: 1 }))
    .addNode("polish", (state) => ({ text: `${state.text}, polished`, edits: 1 }))
    .addEdge(START, "draft")
    .addEdge("draft", "polish")
    .addEdge("polish", END)
    .compile({ checkpointer: new MemorySaver(), interruptBefore: ["polish"] });
  const config = { configurable: { thread_id: "doc" } };
  await graph.invoke({ text: "a memo" }, config);
  const paused = await graph.getState(config);
  const updated = await graph.updateState(config, { text: "a shorter memo" }, "draft");
  const afterUpdate = await graph.getState(config);
  const done = await graph.invoke(null, config);
  const snapshots: Array<Awaited<ReturnType<typeof graph.getState>>> = [];
  for await (const s of graph.getStateHistory(config)) snapshots.push(s);
  const view = snapshots.map((s) => ({
    next: s.next,
    step: s.metadata?.step,
    source: s.metadata?.source,
    values: s.values,
    linked: s.parentConfig === undefined || typeof s.parentConfig.configurable?.checkpoint_id === "string",
  }));
  const chained = snapshots.every(
    (s, i) =>
      i === snapshots.length - 1 ||
      s.parentConfig?.configurable?.checkpoint_id === snapshots[i + 1]?.config.configurable?.checkpoint_id,
  );
  const replayFrom = snapshots.find((s) => s.next.includes("polish") && s.metadata?.source === "loop");
  const replayed = replayFrom ? await graph.invoke(null, replayFrom.config) : undefined;
  return {
    paused: { next: paused.next, values: paused.values, thread: paused.config.configurable?.thread_id },
    updated: {
      thread: updated.configurable?.thread_id,
      hasId: typeof updated.configurable?.checkpoint_id === "string",
    },
    afterUpdate: { next: afterUpdate.next, values: afterUpdate.values },
    done,
    view,
    chained,
    replayed,
  };
}
