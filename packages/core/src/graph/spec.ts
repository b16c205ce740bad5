import type { CheckpointSaver, Clock, Store } from "@trellis/checkpoint";
import type { NodeContext } from "../runtime/node-context.js";
import type { PausedInputPolicy } from "../runtime/paused-input.js";
import type { RetryPolicy } from "../runtime/retry.js";
import type { RouterContext } from "../runtime/route.js";
import type { StandardSchemaV1 } from "../schema/standard-schema.js";
import type { StateSchema } from "../state.js";

/** What a router may return: node names (or path-map keys), END, Send packets, or a list of them. */
export type RouterResult = unknown;

/**
 * Options of `addNode`.
 *
 * @example
 * builder.addNode("fetch", fetchPage, { retryPolicy: { maxAttempts: 3 }, timeout: 30_000, ends: ["parse"] });
 */
export interface NodeOptions {
  /** Retry the node on failure (see {@link RetryPolicy}). */
  retryPolicy?: RetryPolicy;
  /** Milliseconds the node may run before it fails with `NodeTimeoutError`. */
  timeout?: number;
  /** Nodes this node may route to with `Command({ goto })`, so validation and drawings know them. */
  ends?: readonly string[];
  /** Free-form metadata shown by `getGraph()`. */
  metadata?: Record<string, unknown>;
  /**
   * The answer this node's `interrupt()` expects (a Standard Schema: zod 4, Valibot…). A resume value
   * that fails it is refused with `INVALID_RESUME` and the thread stays paused.
   *
   * @example
   * builder.addNode("review", review, { resumeSchema: z.object({ approved: z.boolean() }) });
   */
  resumeSchema?: StandardSchemaV1;
  /**
   * Maps what the node returns (what its promise resolves to) before the runtime reads it: for a layer
   * that converts its nodes' returns, as `@trellis/langgraph` does. An asynchronous node's task then
   * takes one promise, not a second one for the conversion. A mapping that throws fails the attempt as
   * the node throwing would (the retry policy applies).
   *
   * @example
   * builder.addNode("count", async () => ({ count: "1" }), { mapResult: (r) => ({ count: Number((r as { count: string }).count) }) });
   */
  mapResult?: (result: unknown) => unknown;
}

/** A node as the runtime sees it. @internal */
export interface NodeSpec {
  name: string;
  run: (input: unknown, ctx: NodeContext) => unknown;
  options: NodeOptions;
  /** Set when the node is a compiled subgraph. */
  subgraph?: { schemaKeys: readonly string[]; spec: GraphSpec };
}

/** A conditional edge. @internal */
export interface BranchSpec {
  from: string;
  router: (state: unknown, ctx: RouterContext) => RouterResult | Promise<RouterResult>;
  /** Router result → node; absent when the router returns node names directly. */
  pathMap?: Record<string, string>;
  /** The path map was given as a list of node names: its keys are not drawn as labels. */
  listed?: boolean;
}

/** An edge that waits for all of its sources. @internal */
export interface JoinSpec {
  id: string;
  sources: readonly string[];
  target: string;
}

/** Everything `compile()` fixes about a graph. Immutable once built. @internal */
export interface GraphSpec {
  name: string;
  schema: StateSchema;
  channelNames: readonly string[];
  nodes: ReadonlyMap<string, NodeSpec>;
  /** source → targets of plain edges (START included). */
  edges: ReadonlyMap<string, readonly string[]>;
  /** source → joins it takes part in. */
  joins: ReadonlyMap<string, readonly JoinSpec[]>;
  branches: ReadonlyMap<string, readonly BranchSpec[]>;
  interruptBefore: ReadonlySet<string> | "*";
  interruptAfter: ReadonlySet<string> | "*";
  checkpointer: CheckpointSaver | undefined;
  /** The store nodes see as `ctx.store` when the run config gives none. */
  store?: Store | undefined;
  clock: Clock;
  /** How long a run holds its thread without renewing (renewed every third of it). */
  leaseTtlMs: number;
  /** Makes checkpoint ids; with `after`, one that sorts after it (the parent's id). */
  nextId: (after?: string) => string;
  /** Deltas stored before an append-only channel is written whole again. */
  snapshotEvery: number;
  /** What an input does when it arrives while the thread waits on an interrupt. */
  onInputWhilePaused: PausedInputPolicy;
  /** Checks the state an input or a state update would produce, before anything of it is written. */
  validateState?: ((state: Record<string, unknown>) => void) | undefined;
  /** The state update written when a node fails, before the run ends with the error. */
  onNodeError?:
    | ((error: unknown, info: { node: string; state: Record<string, unknown> }) => Record<string, unknown> | undefined)
    | undefined;
  /** The keys whose channel carries a schema: the only ones a caller's write is checked on. */
  typedKeys: ReadonlySet<string>;
  /** True when some node declares a `resumeSchema`. */
  hasResumeSchemas: boolean;
  /** What a run's `configurable` must meet. */
  configSchema?: StandardSchemaV1 | undefined;
  /** What a run's `context` must meet. */
  contextSchema?: StandardSchemaV1 | undefined;
  /** The keys a run's input may set; undefined: every key. */
  inputKeys?: readonly string[] | undefined;
  /** The keys a run returns; undefined: every key. */
  outputKeys?: readonly string[] | undefined;
}
