import type { PlannedTask } from "@trellis/checkpoint";
import { END, START } from "../constants.js";
import { InvalidRouteError } from "../errors.js";
import type { BranchSpec, GraphSpec } from "../graph/spec.js";
import { type Goto, Send } from "./command.js";
import type { RunConfig } from "./config.js";
import { isThenable } from "./thenable.js";
import { assertPlainValue } from "./validate-update.js";

/** A task that finished in the last superstep, as routing needs it. @internal */
export interface Finished {
  node: string;
  goto: readonly Goto[];
}

/** The next superstep's tasks and the join barriers still waiting. @internal */
export interface Routed {
  next: PlannedTask[];
  barriers: Record<string, string[]>;
}

/**
 * Decides the next superstep's tasks from the nodes that just finished: their plain edges, join edges,
 * routers (called with the state after the step) and `Command` gotos. Node triggers are deduplicated;
 * Send packets are kept, each one a task. Returns at once when no router returns a promise (a chain of
 * plain edges makes none); otherwise the routers are awaited one after another, in the same order. @internal
 */
export function route(
  spec: GraphSpec,
  state: unknown,
  finished: readonly Finished[],
  barriers: Readonly<Record<string, string[]>>,
  ctx: RouterContext,
): Routed | Promise<Routed> {
  const routing: Routing = {
    spec,
    state,
    ctx,
    next: [],
    triggered: undefined,
    given: barriers as Record<string, string[]>,
    barriers: barriers as Record<string, string[]>,
  };
  return routeFrom(routing, finished, 0, 0);
}

/**
 * What a router receives besides the state: the run's signal and its config (LangGraph routers read
 * `config.configurable`).
 *
 * @example
 * builder.addConditionalEdges("agent", (state, { config }) => (config.configurable?.fast ? END : "review"));
 */
export interface RouterContext {
  signal: AbortSignal;
  config: Readonly<RunConfig>;
}

interface Routing {
  spec: GraphSpec;
  state: unknown;
  ctx: RouterContext;
  next: PlannedTask[];
  /** Nodes triggered so far; a scan of `next` until it grows past a few. */
  triggered: Set<string> | undefined;
  given: Record<string, string[]>;
  barriers: Record<string, string[]>;
}

/**
 * Routes `finished` from task `from`, starting at its `branchFrom`-th router (past 0, its edges and
 * joins are done already: the run awaited its previous router).
 */
function routeFrom(
  r: Routing,
  finished: readonly Finished[],
  from: number,
  branchFrom: number,
): Routed | Promise<Routed> {
  const { spec } = r;
  for (let i = from; i < finished.length; i++) {
    const { node, goto } = finished[i] as Finished;
    if (i > from || branchFrom === 0) {
      const edges = spec.edges.get(node);
      if (edges) for (const target of edges) trigger(r, target);
      const joins = spec.joins.get(node);
      if (joins) for (const join of joins) passJoin(r, node, join.id, join.sources, join.target);
    }
    const branches = spec.branches.get(node);
    if (branches) {
      for (let j = i > from ? 0 : branchFrom; j < branches.length; j++) {
        const branch = branches[j] as BranchSpec;
        const result = branch.router(r.state, r.ctx);
        if (isThenable(result)) {
          return Promise.resolve(result).then((value) => {
            addBranch(r, branch, value);
            return routeFrom(r, finished, i, j + 1);
          });
        }
        addBranch(r, branch, result);
      }
    }
    for (const item of goto) {
      const planned = resolveGoto(spec, node, item);
      if (planned?.send) r.next.push(planned);
      else if (planned) trigger(r, planned.node);
    }
  }
  return { next: r.next, barriers: r.barriers };
}

function trigger(r: Routing, node: string): void {
  if (node === END) return;
  if (r.triggered) {
    if (r.triggered.has(node)) return;
    r.triggered.add(node);
  } else {
    for (const p of r.next) if (!p.send && p.node === node) return;
    if (r.next.length >= 8) r.triggered = new Set(r.next.filter((p) => !p.send).map((p) => p.node)).add(node);
  }
  r.next.push({ node });
}

function passJoin(r: Routing, node: string, id: string, sources: readonly string[], target: string): void {
  if (r.barriers === r.given) r.barriers = { ...r.given };
  const seen = new Set(r.barriers[id] ?? []);
  seen.add(node);
  if (sources.every((s) => seen.has(s))) {
    delete r.barriers[id];
    trigger(r, target);
  } else {
    r.barriers[id] = [...seen].sort();
  }
}

function addBranch(r: Routing, branch: BranchSpec, result: unknown): void {
  for (const item of resolveBranch(r.spec, branch, result)) {
    if (item.send) r.next.push(item);
    else trigger(r, item.node);
  }
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
