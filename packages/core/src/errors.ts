import { TrellisError } from "@trellis/checkpoint";

/**
 * The graph definition is wrong: an edge to a node that does not exist, a reserved or duplicate node
 * name, a node nothing can reach, no entry point. Raised by `addNode`/`addEdge`/`compile`.
 *
 * @example
 * expect(() => builder.compile()).toThrow(GraphValidationError);
 */
export class GraphValidationError extends TrellisError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("GRAPH_VALIDATION", message, { details });
  }
}

/**
 * A node wrote state that the schema does not allow: an undeclared key, a value that is not plain data,
 * or a second write to a last-value key in the same superstep.
 *
 * @example
 * if (e instanceof InvalidUpdateError) console.log(e.details.key, e.details.nodes);
 */
export class InvalidUpdateError extends TrellisError {}

/**
 * The run took more supersteps than `recursionLimit` allows. `details.looping` names the nodes that ran
 * most, which is usually the cycle that did not end.
 *
 * @example
 * await graph.invoke(input, { threadId, recursionLimit: 50 });
 */
export class GraphRecursionError extends TrellisError {
  constructor(message: string, details: Record<string, unknown>) {
    super("GRAPH_RECURSION", message, { details });
  }
}

/**
 * A router returned a key that is not in its path map, or a node that does not exist.
 *
 * @example
 * builder.addConditionalEdges("review", route, { passed: "deploy", failed: END });
 */
export class InvalidRouteError extends TrellisError {
  constructor(message: string, details: Record<string, unknown>) {
    super("INVALID_ROUTE", message, { details });
  }
}

/**
 * A resume command did not fit the thread: nothing is pending, the map names no pending interrupt, or a
 * single value was given while several interrupts wait.
 *
 * @example
 * await graph.invoke(new Command({ resume: { [interruptId]: "yes" } }), config);
 */
export class ResumeError extends TrellisError {}

/**
 * A node ran longer than its `timeout`.
 *
 * @example
 * builder.addNode("call_api", callApi, { timeout: 10_000 });
 */
export class NodeTimeoutError extends TrellisError {
  constructor(node: string, ms: number) {
    super("NODE_TIMEOUT", `Node "${node}" did not finish within its timeout of ${ms} ms.`, {
      details: { node, timeoutMs: ms },
    });
  }
}

/**
 * The run's `signal` was aborted. The thread keeps its last checkpoint and the writes of tasks that had
 * finished; continue it with `invoke(null, config)`.
 *
 * @example
 * const controller = new AbortController();
 * const run = graph.invoke(input, { threadId, signal: controller.signal });
 * controller.abort(); // run rejects with RunCancelledError
 */
export class RunCancelledError extends TrellisError {
  constructor(threadId: string | undefined, reason?: unknown) {
    super(
      "RUN_CANCELLED",
      `The run${threadId ? ` on thread "${threadId}"` : ""} was cancelled. Its last checkpoint is intact; continue it with invoke(null, config).`,
      { details: { threadId }, cause: reason },
    );
  }
}
