import { type CheckpointSaver, type Clock, createIdGenerator, type Store, systemClock } from "@trellis/checkpoint";
import { END, RESERVED_NODE_NAMES, START } from "../constants.js";
import { GraphValidationError } from "../errors.js";
import type { Command } from "../runtime/command.js";
import { DEFAULT_LEASE_TTL_MS } from "../runtime/lease-keeper.js";
import type { NodeContext } from "../runtime/node-context.js";
import type { PausedInputPolicy } from "../runtime/paused-input.js";
import type { RouterContext } from "../runtime/route.js";
import type { StandardSchemaV1 } from "../schema/standard-schema.js";
import type { StateOf, StateSchema, UpdateOf } from "../state.js";
import { CompiledGraph } from "./compiled-graph.js";
import type { BranchSpec, GraphSpec, JoinSpec, NodeOptions, NodeSpec, RouterResult } from "./spec.js";
import { subgraphNode } from "./subgraph-node.js";
import { validateGraph } from "./validate.js";

/**
 * What a node may return: a partial update, a `Command`, or nothing.
 *
 * @example
 * const route = (s: StateOf<typeof schema>): NodeReturn<typeof schema> =>
 *   s.done ? undefined : new Command({ update: { count: s.count + 1 }, goto: "loop" });
 */
// biome-ignore lint/suspicious/noConfusingVoidType: nodes that only have side effects return nothing.
export type NodeReturn<S extends StateSchema> = UpdateOf<S> | Command<UpdateOf<S>> | null | undefined | void;

/**
 * A node: reads the state (or a `Send` argument), returns an update.
 *
 * @example
 * const generate: NodeFn<typeof schema> = async (state, ctx) => ({ draft: await write(state.topic, ctx.signal) });
 */
export type NodeFn<S extends StateSchema> = (
  state: StateOf<S>,
  ctx: NodeContext,
) => NodeReturn<S> | Promise<NodeReturn<S>>;

/**
 * A conditional edge's router: returns node names, path-map keys, END, or Sends. It reads the state
 * after the superstep, and `ctx` holds the run's signal and config (`ctx.config.configurable`).
 *
 * @example
 * const route: Router<typeof schema> = (state) => (state.approved ? END : "revise");
 * builder.addConditionalEdges("review", route);
 */
export type Router<S extends StateSchema> = (
  state: StateOf<S>,
  ctx: RouterContext,
) => RouterResult | Promise<RouterResult>;

/**
 * Options of {@link StateGraph.compile}.
 *
 * @example
 * const graph = builder.compile({ checkpointer: new MemorySaver(), interruptBefore: ["send_email"] });
 */
export interface CompileOptions<S extends StateSchema = StateSchema> {
  /** Where checkpoints go. Needed for interrupts, resume, time travel. */
  checkpointer?: CheckpointSaver;
  /**
   * The long-term memory store shared across threads, reached by nodes as `ctx.store` (and by tools
   * with `getStore()`), as LangGraph's `compile({ store })`. A run config's `store` overrides it.
   *
   * @example
   * builder.compile({ checkpointer, store: new SqliteStore({ database: checkpointer.database }) });
   */
  store?: Store;
  /** Pause before these nodes run ("*" for all). */
  interruptBefore?: readonly string[] | "*";
  /** Pause after these nodes run ("*" for all). */
  interruptAfter?: readonly string[] | "*";
  /** Name shown in errors and drawings. */
  name?: string;
  /** Time source for retries, timeouts, leases and checkpoint ids. */
  clock?: Clock;
  /**
   * Deltas stored for an append-only channel before it is stored whole again. Default 1000: reads walk
   * at most that many records, and a thread pays one extra full copy of a list per 1000 steps.
   */
  snapshotEvery?: number;
  /**
   * How long a run holds its thread's lease without renewing it (it renews every third of this).
   * After a crash, another process can take the thread over once this has passed. Default 30,000 ms.
   */
  leaseTtlMs?: number;
  /**
   * What an input (not a `Command`) does when it arrives while the thread waits on an interrupt:
   * `"restart"` (default, as LangGraph), `"resume"` (it answers the pending interrupt) or `"reject"`
   * (`THREAD_PAUSED`). Every door applies it the same way; see {@link PausedInputPolicy}.
   */
  onInputWhilePaused?: PausedInputPolicy;
  /**
   * Checks the state a caller's input (or `Command({ update })`) would produce, before anything of it
   * is written: throw a `TrellisError` (`INVALID_ARGUMENT`) naming the field. Node writes are not
   * checked. A server calls it when it accepts a request (`graph.checkInput`), so bad input is a 400
   * and nothing is queued.
   *
   * @example
   * compile({ validateState: (s) => { if (typeof s.dry_run !== "boolean") throw new TrellisError("INVALID_ARGUMENT", "dry_run must be true or false."); } })
   */
  validateState?: (state: StateOf<S>) => void;
  /**
   * Called when a node fails (after its retries; not for an interrupt or a cancel). The update it
   * returns is written as a new checkpoint that keeps the failed step's tasks and the results of the
   * tasks that finished, and then the run ends with the error — so the failure shows in the state
   * (a `status: "error"`), and continuing the thread (`invoke(null)`) runs what failed and nothing
   * that finished; the node's own write then replaces the update. Return undefined to write nothing.
   * Not in LangGraph, where a failed step writes no state.
   *
   * @example
   * compile({ onNodeError: (error, { node }) => ({ status: "error" }) })
   */
  onNodeError?: (error: unknown, info: { node: string; state: StateOf<S> }) => UpdateOf<S> | undefined;
}

/**
 * Options of the {@link StateGraph} constructor.
 *
 * @example
 * new StateGraph(schema, { name: "review", contextSchema: z.object({ userId: z.string() }) });
 */
export interface StateGraphOptions<
  S extends StateSchema = StateSchema,
  I extends keyof S & string = keyof S & string,
  O extends keyof S & string = keyof S & string,
> {
  /** Name shown in errors, drawings and `getSchemas()`. */
  name?: string;
  /**
   * The state keys a run's input may set (LangGraph's `input` schema, as a subset of the state):
   * `getSchemas().input` lists only these, so a form or the CLI offers them and not the graph's
   * working keys. A run's input with another key is refused (`INVALID_UPDATE`, naming it);
   * LangGraph drops such keys silently. A `Command({ update })` and `updateState` may still set any
   * key. Default: every key.
   *
   * @example
   * new StateGraph(schema, { input: ["topic"], output: ["draft"] });
   */
  input?: readonly I[];
  /**
   * The state keys a run returns (LangGraph's `output` schema): `invoke`, `run` and a server's
   * `runs/wait` answer with only these; the thread's state still holds every key. Default: every key.
   *
   * @example
   * (await graph.invoke({ topic: "ladders" })).draft; // only the output keys are returned
   */
  output?: readonly O[];
  /**
   * What a run's `configurable` must meet (LangGraph's config schema): refused with `INVALID_CONFIG`
   * when it does not, and shown by `getSchemas().config`.
   */
  configSchema?: StandardSchemaV1;
  /** What a run's `context` must meet (LangGraph's `context_schema`), shown by `getSchemas().context`. */
  contextSchema?: StandardSchemaV1;
}

/**
 * Builds a graph over a state schema: nodes, edges, conditional edges. `compile()` checks it and returns
 * the runnable graph.
 *
 * @example
 * const graph = new StateGraph({ topic: channel.value(""), draft: channel.value("") })
 *   .addNode("write", (s) => ({ draft: `About ${s.topic}` }))
 *   .addEdge(START, "write")
 *   .addEdge("write", END)
 *   .compile();
 * await graph.invoke({ topic: "safety" }); // { topic: "safety", draft: "About safety" }
 */
export class StateGraph<
  S extends StateSchema,
  I extends keyof S & string = keyof S & string,
  O extends keyof S & string = keyof S & string,
> {
  readonly #schema: S;
  readonly #nodes = new Map<string, NodeSpec>();
  readonly #edges: Array<{ from: string; to: string }> = [];
  readonly #joins: JoinSpec[] = [];
  readonly #branches: BranchSpec[] = [];
  readonly #name: string | undefined;
  readonly #options: StateGraphOptions<S, I, O>;

  constructor(schema: S, options: StateGraphOptions<S, I, O> = {}) {
    if (typeof schema !== "object" || schema === null) {
      throw new GraphValidationError(
        "StateGraph needs a state schema: an object of channels, e.g. { topic: channel.value('') }.",
      );
    }
    for (const [key, spec] of Object.entries(schema)) {
      if (typeof spec?.apply !== "function" || typeof spec.initial !== "function") {
        throw new GraphValidationError(
          `State key "${key}" is not a channel. Build it with channel.value(), channel.reduce(), channel.append() or channel.messages().`,
          { key },
        );
      }
    }
    for (const which of ["input", "output"] as const) checkSubset(schema, which, options[which]);
    this.#schema = schema;
    this.#name = options.name;
    this.#options = options;
  }

  /** Adds a node: a function of the state, or a compiled graph used as a subgraph. */
  addNode(name: string, fn: NodeFn<S> | CompiledGraph<StateSchema>, options?: NodeOptions): this;
  /** Adds a node that receives a `Send` argument of type `A` instead of the state. */
  addNode<A>(
    name: string,
    fn: (input: A, ctx: NodeContext) => NodeReturn<S> | Promise<NodeReturn<S>>,
    options?: NodeOptions,
  ): this;
  addNode(name: string, fn: unknown, options: NodeOptions = {}): this {
    if (typeof name !== "string" || name === "")
      throw new GraphValidationError("A node needs a non-empty string name.");
    if (RESERVED_NODE_NAMES.has(name)) {
      throw new GraphValidationError(`"${name}" is reserved and cannot name a node. Pick another name.`, {
        node: name,
      });
    }
    if (name.includes("|") || name.includes(":")) {
      throw new GraphValidationError(
        `Node name "${name}" may not contain "|" or ":"; they separate subgraph namespaces.`,
        {
          node: name,
        },
      );
    }
    if (this.#nodes.has(name)) {
      throw new GraphValidationError(
        `A node named "${name}" already exists in this graph. Node names must be unique.`,
        {
          node: name,
        },
      );
    }
    if (fn instanceof CompiledGraph) {
      this.#nodes.set(name, subgraphNode(name, fn, Object.keys(this.#schema), this.#schema, options));
    } else if (typeof fn === "function") {
      this.#nodes.set(name, { name, run: fn as NodeSpec["run"], options });
    } else {
      throw new GraphValidationError(`Node "${name}" must be a function or a compiled graph.`, { node: name });
    }
    return this;
  }

  /** Adds an edge. With several sources, the target runs once all of them have run (a join). */
  addEdge(from: string | readonly string[], to: string): this {
    if (Array.isArray(from)) {
      const sources = [...new Set(from as string[])].sort();
      if (sources.length === 0) throw new GraphValidationError("addEdge needs at least one source node.");
      if (sources.length === 1) return this.addEdge(sources[0] as string, to);
      if (sources.includes(START))
        throw new GraphValidationError("START cannot be one of several sources of a join edge.");
      this.#joins.push({ id: `join:${sources.join("+")}:${to}`, sources, target: to });
      return this;
    }
    if (from === END) throw new GraphValidationError("END has no outgoing edges; it ends the graph.");
    if (to === START) throw new GraphValidationError("START cannot be the target of an edge.");
    this.#edges.push({ from: from as string, to });
    return this;
  }

  /**
   * Adds a conditional edge: after `from` runs, `router` picks where to go. With a `pathMap`, the router
   * returns its keys; a list of names means each name maps to itself.
   */
  addConditionalEdges(from: string, router: Router<S>, pathMap?: Record<string, string> | readonly string[]): this {
    if (typeof router !== "function") {
      throw new GraphValidationError(`The router of the conditional edge from "${from}" must be a function.`, { from });
    }
    const branch: BranchSpec = { from, router: router as BranchSpec["router"] };
    if (pathMap) {
      branch.pathMap = Array.isArray(pathMap)
        ? Object.fromEntries((pathMap as string[]).map((n) => [n, n]))
        : { ...(pathMap as Record<string, string>) };
      if (Array.isArray(pathMap)) branch.listed = true;
    }
    this.#branches.push(branch);
    return this;
  }

  /** Adds nodes that run one after another, with edges between them. */
  addSequence(nodes: ReadonlyArray<readonly [string, NodeFn<S>]> | Record<string, NodeFn<S>>): this {
    const list = Array.isArray(nodes) ? (nodes as ReadonlyArray<readonly [string, NodeFn<S>]>) : Object.entries(nodes);
    if (list.length === 0) throw new GraphValidationError("addSequence needs at least one node.");
    let previous: string | undefined;
    for (const [name, fn] of list) {
      this.addNode(name, fn);
      if (previous !== undefined) this.addEdge(previous, name);
      previous = name;
    }
    return this;
  }

  /** The same as `addEdge(START, node)`. */
  setEntryPoint(node: string): this {
    return this.addEdge(START, node);
  }

  /** The same as `addEdge(node, END)`. */
  setFinishPoint(node: string): this {
    return this.addEdge(node, END);
  }

  /** Checks the graph and returns it ready to run. Throws a {@link GraphValidationError} naming the problem. */
  compile(options: CompileOptions<S> = {}): CompiledGraph<S, I, O> {
    const name = options.name ?? this.#name ?? "graph";
    validateGraph({
      name,
      nodes: this.#nodes,
      edges: this.#edges,
      joins: this.#joins,
      branches: this.#branches,
      interruptBefore: options.interruptBefore,
      interruptAfter: options.interruptAfter,
    });
    const clock = options.clock ?? systemClock;
    const group = <T extends { from: string } | JoinSpec>(items: readonly T[], keys: (t: T) => readonly string[]) => {
      const map = new Map<string, T[]>();
      for (const item of items) for (const key of keys(item)) map.set(key, [...(map.get(key) ?? []), item]);
      return map;
    };
    const edges = new Map<string, string[]>();
    for (const { from, to } of this.#edges) {
      const list = edges.get(from) ?? [];
      if (!list.includes(to)) list.push(to);
      edges.set(from, list);
    }
    const spec: GraphSpec = {
      name,
      schema: this.#schema,
      channelNames: Object.keys(this.#schema),
      nodes: new Map(this.#nodes),
      edges,
      joins: group(this.#joins, (j) => j.sources),
      branches: group(this.#branches, (b) => [b.from]),
      interruptBefore: breakpoints(options.interruptBefore),
      interruptAfter: breakpoints(options.interruptAfter),
      checkpointer: options.checkpointer,
      store: options.store,
      clock,
      nextId: createIdGenerator(clock),
      snapshotEvery: options.snapshotEvery ?? 1000,
      leaseTtlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
      onInputWhilePaused: checkPolicy(options.onInputWhilePaused ?? "restart"),
      validateState: options.validateState as GraphSpec["validateState"],
      onNodeError: options.onNodeError as GraphSpec["onNodeError"],
      typedKeys: new Set(Object.keys(this.#schema).filter((k) => this.#schema[k]?.schema !== undefined)),
      hasResumeSchemas: [...this.#nodes.values()].some((n) => n.options.resumeSchema !== undefined),
      configSchema: this.#options.configSchema,
      contextSchema: this.#options.contextSchema,
      inputKeys: this.#options.input ? [...this.#options.input] : undefined,
      outputKeys: this.#options.output ? [...this.#options.output] : undefined,
    };
    return new CompiledGraph<S, I, O>(spec);
  }
}

/** Checks that an `input` / `output` option lists keys of the state, each once. */
function checkSubset(schema: StateSchema, which: "input" | "output", keys: readonly string[] | undefined): void {
  if (keys === undefined) return;
  if (!Array.isArray(keys)) {
    throw new GraphValidationError(`The "${which}" option lists state keys, e.g. { ${which}: ["topic"] }.`);
  }
  for (const key of keys) {
    if (typeof key !== "string" || !Object.hasOwn(schema, key)) {
      throw new GraphValidationError(
        `The "${which}" option names ${JSON.stringify(key)}, which is not a key of the state schema. State keys: ${Object.keys(schema).join(", ")}.`,
        { key },
      );
    }
  }
}

function checkPolicy(policy: PausedInputPolicy): PausedInputPolicy {
  const ok =
    policy === "restart" ||
    policy === "resume" ||
    policy === "reject" ||
    (typeof policy === "object" && policy !== null && typeof policy.resume === "function");
  if (ok) return policy;
  throw new GraphValidationError(
    `onInputWhilePaused must be "restart", "resume", "reject" or { resume: (input) => answer }; got ${JSON.stringify(policy)}.`,
  );
}

function breakpoints(list: readonly string[] | "*" | undefined): ReadonlySet<string> | "*" {
  return list === "*" ? "*" : new Set(list ?? []);
}
