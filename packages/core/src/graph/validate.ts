import { END, START } from "../constants.js";
import { GraphValidationError } from "../errors.js";
import type { BranchSpec, JoinSpec, NodeSpec } from "./spec.js";

/** The parts of a graph definition that compile() checks. @internal */
export interface GraphDefinition {
  name: string;
  nodes: ReadonlyMap<string, NodeSpec>;
  edges: ReadonlyArray<{ from: string; to: string }>;
  joins: readonly JoinSpec[];
  branches: readonly BranchSpec[];
  interruptBefore: readonly string[] | "*" | undefined;
  interruptAfter: readonly string[] | "*" | undefined;
}

/** Throws a {@link GraphValidationError} for the first problem found in a graph definition. @internal */
export function validateGraph(def: GraphDefinition): void {
  const { name, nodes } = def;
  const isNode = (n: string) => nodes.has(n);
  const where = `graph "${name}"`;
  if (nodes.size === 0) throw new GraphValidationError(`${where} has no nodes. Add one with addNode().`);
  for (const { from, to } of def.edges) {
    if (from !== START && !isNode(from)) {
      throw new GraphValidationError(
        `An edge starts at "${from}", which is not a node of ${where}.${hint(from, nodes)}`,
        {
          from,
          to,
        },
      );
    }
    if (to !== END && !isNode(to)) {
      throw new GraphValidationError(
        `The edge from "${from}" goes to "${to}", which is not a node of ${where}.${hint(to, nodes)}`,
        {
          from,
          to,
        },
      );
    }
  }
  for (const join of def.joins) {
    for (const s of join.sources) {
      if (!isNode(s))
        throw new GraphValidationError(`A join edge waits for "${s}", which is not a node of ${where}.`, { from: s });
    }
    if (join.target !== END && !isNode(join.target)) {
      throw new GraphValidationError(`A join edge goes to "${join.target}", which is not a node of ${where}.`, {
        to: join.target,
      });
    }
  }
  for (const branch of def.branches) {
    if (branch.from !== START && !isNode(branch.from)) {
      throw new GraphValidationError(
        `A conditional edge starts at "${branch.from}", which is not a node of ${where}.`,
        {
          from: branch.from,
        },
      );
    }
    for (const [key, target] of Object.entries(branch.pathMap ?? {})) {
      if (target !== END && !isNode(target)) {
        throw new GraphValidationError(
          `The path map of the conditional edge from "${branch.from}" sends "${key}" to "${target}", which is not a node of ${where}.${hint(target, nodes)}`,
          { from: branch.from, key, to: target },
        );
      }
    }
  }
  for (const node of nodes.values()) {
    for (const end of node.options.ends ?? []) {
      if (end !== END && !isNode(end)) {
        throw new GraphValidationError(`Node "${node.name}" declares ends "${end}", which is not a node of ${where}.`, {
          node: node.name,
        });
      }
    }
  }
  for (const [label, list] of [
    ["interruptBefore", def.interruptBefore],
    ["interruptAfter", def.interruptAfter],
  ] as const) {
    if (list === "*" || !list) continue;
    for (const n of list) {
      if (!isNode(n))
        throw new GraphValidationError(`${label} names "${n}", which is not a node of ${where}.`, { node: n });
    }
  }
  const entry = def.edges.some((e) => e.from === START) || def.branches.some((b) => b.from === START);
  if (!entry) {
    throw new GraphValidationError(
      `${where} has no entry point. Add addEdge(START, "<first node>") or setEntryPoint("<first node>").`,
    );
  }
  const unreachable = unreachableNodes(def);
  if (unreachable.length > 0) {
    throw new GraphValidationError(
      `Nothing in ${where} leads to ${unreachable.map((n) => `"${n}"`).join(", ")}. Add an edge to ${unreachable.length > 1 ? "them" : "it"}, list ${unreachable.length > 1 ? "them" : "it"} in a path map or a node's \`ends\`, or remove ${unreachable.length > 1 ? "them" : "it"}.`,
      { nodes: unreachable },
    );
  }
}

function unreachableNodes(def: GraphDefinition): string[] {
  const successors = new Map<string, Set<string>>();
  const add = (from: string, to: string) => {
    const set = successors.get(from) ?? new Set();
    set.add(to);
    successors.set(from, set);
  };
  const all = [...def.nodes.keys()];
  for (const { from, to } of def.edges) add(from, to);
  for (const join of def.joins) for (const s of join.sources) add(s, join.target);
  for (const branch of def.branches) {
    const targets = branch.pathMap ? Object.values(branch.pathMap) : all;
    for (const t of targets) add(branch.from, t);
  }
  for (const node of def.nodes.values()) for (const end of node.options.ends ?? []) add(node.name, end);
  const seen = new Set<string>([START]);
  const queue = [START];
  while (queue.length > 0) {
    const current = queue.shift() as string;
    for (const next of successors.get(current) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return all.filter((n) => !seen.has(n));
}

function hint(name: string, nodes: ReadonlyMap<string, NodeSpec>): string {
  const loose = (s: string) => s.toLowerCase().replace(/[-_\s]/g, "");
  const close = [...nodes.keys()].find((n) => loose(n) === loose(name));
  return close ? ` Did you mean "${close}"?` : ` Nodes: ${[...nodes.keys()].map((n) => `"${n}"`).join(", ")}.`;
}
