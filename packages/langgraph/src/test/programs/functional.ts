import type { Modules } from "./modules.js";

/**
 * An entrypoint with tasks: the tasks run in parallel, a person approves with `interrupt()`, the tasks
 * do not run again on resume, and the next run on the thread reads `getPreviousState()`.
 */
export async function functionalWorkflow({ lg }: Modules): Promise<unknown> {
  const { entrypoint, task, interrupt, getPreviousState, MemorySaver, Command } = lg;
  const calls: string[] = [];
  const outline = task("outline", async (topic: string) => {
    calls.push(`outline ${topic}`);
    return [`${topic}: intro`, `${topic}: body`];
  });
  const polish = task("polish", async (line: string) => {
    calls.push(`polish ${line}`);
    return line.toUpperCase();
  });
  const workflow = entrypoint({ name: "writer", checkpointer: new MemorySaver() }, async (topic: string) => {
    const lines = await outline(topic);
    const polished = await Promise.all(lines.map((line) => polish(line)));
    const approved = interrupt<{ lines: string[] }, boolean>({ lines: polished });
    const before = getPreviousState<{ count: number } | undefined>();
    const count = (before?.count ?? 0) + 1;
    return entrypoint.final({ value: { approved, polished, count }, save: { count } });
  });
  const config = { configurable: { thread_id: "essay" } };
  const paused = await workflow.invoke("tea", config);
  const done = await workflow.invoke(new Command({ resume: true }), config);
  const callsAfterFirst = [...calls];
  await workflow.invoke("coffee", config);
  const second = await workflow.invoke(new Command({ resume: false }), config);
  return { paused, done, callsAfterFirst, second, calls };
}
