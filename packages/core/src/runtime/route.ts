import type { PlannedTask } from "@trellis/checkpoint";
import { END, START } from "../constants.js";
import { InvalidRouteError } from "../errors.js";
import type { BranchSpec, GraphSpec } from "../graph/spec.js";
import { type Goto, Send } from "./command.js";
import { assertPlainValue } from "./validate-update.js";

/** A task that finished in the last superstep, as routing needs it. @internal */
export interface Finished {
  node: string;
  goto: readonly Goto[];
}

/**
 * Decides the next superstep's tasks from the nodes that just finished: their plain edges, join edges,
 * routers (called with the state after the step) and `Command` gotos. Node triggers are deduplicated;
 * Send packets are kept, each one a task. @internal
 */
export async function route(
  spec: GraphSpec,
  state: unknown,
  finished: readonly Finished[],
  barriers: Readonly<Record<string, string[]>>,
  signal: AbortSignal,
): Promise<{ next: PlannedTask[]; barriers: Record<string, string[]> }> {
  const next: PlannedTask[] = [];
  const triggered = new Set<string>();
  const trigger = (node: string) => {
    if (node === END || triggered.has(node)) return;
    triggered.add(node);
    next.push({ node });
  };
  let nextBarriers = barriers as Record<string, string[]>;
  for (const { node, goto } of finished) {
    for (const target of spec.edges.get(node) ?? []) trigger(target);
    for (const join of spec.joins.get(node) ?? []) {
      if (nextBarriers === barriers) nextBarriers = { ...barriers };
      const seen = new Set(nextBarriers[join.id] ?? []);
      seen.add(node);
      if (join.sources.every((s) => seen.has(s))) {
        delete nextBarriers[join.id];
        trigger(join.target);
      } else {
        nextBarriers[join.id] = [...seen].sort();
      }
    }
    for (const branch of spec.branches.get(node) ?? []) {
      const result = await branch.router(state, { signal });
      for (const item of resolveBranch(spec, branch, result)) {
        if (item.send) next.push(item);
        else trigger(item.node);
      }
    }
    for (const item of goto) {
      const planned = resolveGoto(spec, node, item);
      if (planned?.send) next.push(planned);
      else if (planned) trigger(planned.node);
    }
  }
  return { next, barriers: nextBarriers };
}

function resolveBranch(spec: GraphSpec, branch: BranchSpec, result: unknown): PlannedTask[] {
  const items = Array.isArray(result) ? result : [result];
  const out: PlannedTask[] = [];
  const routerName = describeRouter(branch);
  for (const item of items) {
    if (item instanceof Send) {
      out.push(sendTask(spec, routerName, item));
      continue;
    }
    if (typeof item !== "string") {
      throw new InvalidRouteError(
        `${routerName} returned ${JSON.stringify(item) ?? String(item)}; a router must return a node name, a path-map key, END, a Send, or a list of them.`,
        { router: routerName, from: branch.from },
      );
    }
    let target = item;
    if (branch.pathMap) {
      const mapped = branch.pathMap[item];
      if (mapped === undefined && item !== END) {
        throw new InvalidRouteError(
          `${routerName} returned "${item}", which is not a key of its path map (${Object.keys(branch.pathMap)
            .map((k) => `"${k}"`)
            .join(", ")}). Add it to the path map or return one of those keys.`,
          { router: routerName, from: branch.from, key: item },
        );
      }
      target = mapped ?? END;
    }
    if (target === END) continue;
    if (!spec.nodes.has(target)) {
      throw new InvalidRouteError(`${routerName} routed to "${target}", which is not a node of graph "${spec.name}".`, {
        router: routerName,
        from: branch.from,
        key: item,
      });
    }
    out.push({ node: target });
  }
  return out;
}

function resolveGoto(spec: GraphSpec, from: string, item: Goto): PlannedTask | undefined {
  if (item instanceof Send) return sendTask(spec, `Node "${from}"`, item);
  if (item === END) return undefined;
  if (!spec.nodes.has(item)) {
    throw new InvalidRouteError(
      `Node "${from}" returned Command({ goto: "${item}" }), but "${item}" is not a node of graph "${spec.name}".`,
      { from, key: item },
    );
  }
  return { node: item };
}

function sendTask(spec: GraphSpec, who: string, send: Send): PlannedTask {
  if (!spec.nodes.has(send.node)) {
    throw new InvalidRouteError(
      `${who} sent a packet to "${send.node}", which is not a node of graph "${spec.name}".`,
      {
        key: send.node,
      },
    );
  }
  assertPlainValue(send.arg, send.node, "the Send argument");
  return { node: send.node, send: { arg: send.arg } };
}

function describeRouter(branch: BranchSpec): string {
  const name = branch.router.name && branch.router.name !== "router" ? `"${branch.router.name}"` : "";
  return `The router ${name ? `${name} ` : ""}of "${branch.from === START ? "START" : branch.from}"`.replace("  ", " ");
}
