/**
 * The virtual node a graph starts from. `addEdge(START, "first")` sets the entry point.
 *
 * @example
 * builder.addEdge(START, "plan");
 */
export const START = "__start__";
/**
 * The virtual node a graph ends at. Routing to END finishes that branch.
 *
 * @example
 * builder.addConditionalEdges("review", (s) => (s.approved ? END : "revise"));
 */
export const END = "__end__";

/** Names nodes may not take. @internal */
export const RESERVED_NODE_NAMES: ReadonlySet<string> = new Set([START, END, "__input__", "__interrupt__"]);

/** Pending-write channels the runtime uses for its own records. @internal */
export const WRITE = {
  result: "__result__",
  interrupt: "__interrupt__",
  resume: "__resume__",
  error: "__error__",
  stepPrefix: "__step__:",
} as const;
