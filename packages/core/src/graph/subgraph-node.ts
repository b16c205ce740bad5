import type { StateSchema } from "../state.js";
import type { CompiledGraph } from "./compiled-graph.js";
import type { NodeOptions, NodeSpec } from "./spec.js";

/**
 * Wraps a compiled graph as a node of a parent graph. The subgraph receives the parent's values for the
 * keys both schemas share, runs as a nested run (its checkpoints under the task's namespace), and hands
 * back what it changed: for lists the parent appends to, only the items it added. @internal
 */
export function subgraphNode(
  name: string,
  graph: CompiledGraph<StateSchema>,
  parentKeys: readonly string[],
  parentSchema: StateSchema,
  options: NodeOptions,
): NodeSpec {
  const shared = graph.schemaKeys.filter((k) => parentKeys.includes(k));
  return {
    name,
    options,
    subgraph: { schemaKeys: graph.schemaKeys, spec: graph.spec },
    async run(input) {
      const state = input as Record<string, unknown>;
      const childInput: Record<string, unknown> = {};
      // A Send packet may carry only some keys: the subgraph keeps its defaults for the others.
      for (const key of shared) if (state[key] !== undefined) childInput[key] = state[key];
      const out = (await graph.invoke(childInput)) as Record<string, unknown>;
      const update: Record<string, unknown> = {};
      for (const key of shared) {
        // a subgraph with an output schema hands back only its output keys
        if (!Object.hasOwn(out, key)) continue;
        const before = state[key];
        const after = out[key];
        if (after === before) continue;
        if (
          parentSchema[key]?.appendOnly &&
          Array.isArray(before) &&
          Array.isArray(after) &&
          startsWith(after, before)
        ) {
          if (after.length > before.length) update[key] = after.slice(before.length);
          continue;
        }
        update[key] = after;
      }
      return update;
    },
  };
}

function startsWith(list: readonly unknown[], prefix: readonly unknown[]): boolean {
  if (list.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (list[i] !== prefix[i]) return false;
  return true;
}
