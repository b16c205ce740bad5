import {
  InvalidUpdateError as CoreInvalidUpdateError,
  NodeTimeoutError as CoreNodeTimeoutError,
  GraphRecursionError as CoreRecursionError,
  GraphInterrupt,
  TrellisError,
} from "@trellis/core";

export { GraphInterrupt };

/**
 * LangGraph's base error class; the compat layer's own errors extend it, and `isGraphInterrupt`,
 * `isGraphBubbleUp` tell its control-flow errors apart.
 *
 * @example
 * try { await graph.invoke(input); } catch (e) { if (e instanceof BaseLangGraphError) console.error(e.lc_error_code); }
 */
export class BaseLangGraphError extends Error {
  lc_error_code?: string;
  constructor(message?: string, fields?: { lc_error_code?: string }) {
    super(message);
    this.name = "BaseLangGraphError";
    if (fields?.lc_error_code !== undefined) this.lc_error_code = fields.lc_error_code;
  }
}

/**
 * Raised when a run takes more supersteps than its `recursionLimit`: Trellis's own error, which also
 * names the looping nodes.
 *
 * @example
 * try { await graph.invoke(input, { recursionLimit: 5 }); } catch (e) { if (e instanceof GraphRecursionError) retryWithMore(); }
 */
export const GraphRecursionError = CoreRecursionError;

/**
 * Raised on an update the state cannot take (two writes to a plain key in one step, a bad remove).
 *
 * @example
 * if (error instanceof InvalidUpdateError) console.error(error.message);
 */
export const InvalidUpdateError = CoreInvalidUpdateError;

/**
 * Raised when a node runs past its timeout.
 *
 * @example
 * if (error instanceof NodeTimeoutError) console.error("too slow");
 */
export const NodeTimeoutError = CoreNodeTimeoutError;

/**
 * Raised for a graph that cannot compile (unknown node, missing entry point…): Trellis's
 * `GraphValidationError` under LangGraph's name.
 *
 * @example
 * try { builder.compile(); } catch (e) { if (e instanceof GraphValueError) console.error(e.message); }
 */
export { GraphValidationError as GraphValueError } from "@trellis/core";

/**
 * Raised when a graph is invoked with no input where it needs one.
 *
 * @example
 * if (error instanceof EmptyInputError) console.error("give the graph an input");
 */
export class EmptyInputError extends BaseLangGraphError {
  constructor(message?: string) {
    super(message);
    this.name = "EmptyInputError";
  }
}

/**
 * True for the error that pauses a run on `interrupt()`.
 *
 * @example
 * try { await work(); } catch (e) { if (isGraphInterrupt(e)) throw e; }
 */
export function isGraphInterrupt(error: unknown): error is GraphInterrupt {
  return error instanceof GraphInterrupt;
}

/**
 * True for the errors that must pass through user code untouched (interrupts, parent commands).
 *
 * @example
 * try { await tool.invoke(args); } catch (e) { if (isGraphBubbleUp(e)) throw e; }
 */
export { isControlFlowSignal as isGraphBubbleUp } from "@trellis/core";

/**
 * Trellis's error (a `code` and a message saying what to do), for errors that LangGraph has no class for.
 *
 * @example
 * if (error instanceof TrellisError && error.code === "THREAD_BUSY") retryLater();
 */
export { TrellisError };
