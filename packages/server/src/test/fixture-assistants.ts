/**
 * A graph for the assistant tests: its one node records what it reads from `ctx.config.configurable`
 * (where an assistant's config and context reach nodes), so a test sees which values won.
 */
import { channel, END, START, StateGraph } from "@trellis/core";

/** `read` copies `model`, `tone` and `lang` from the run's configurable into `seen`. */
export function configuredGraph() {
  return new StateGraph(
    { seen: channel.value<Record<string, unknown>>({}), turns: channel.append<string>() },
    { name: "configured" },
  )
    .addNode("read", (_s, ctx) => {
      const c = ctx.config.configurable ?? {};
      return {
        seen: { model: c.model ?? null, tone: c.tone ?? null, lang: c.lang ?? null },
        turns: [String(c.model ?? "none")],
      };
    })
    .addEdge(START, "read")
    .addEdge("read", END)
    .compile();
}
