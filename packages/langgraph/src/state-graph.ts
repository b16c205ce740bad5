import type { CheckpointSaver, Store } from "@trellis/checkpoint";
import {
  type CompiledGraph,
  StateGraph as CoreStateGraph,
  END,
  GraphValidationError,
  type NodeOptions,
  type RetryPolicy,
  START,
  type StandardSchemaV1,
  type StateSchema,
} from "@trellis/core";
import { AnnotationRoot, type StateDefinition, type StateType, type UpdateType } from "./annotation.js";
import { CompiledStateGraph } from "./compiled-state-graph.js";
import { ensureConfigStorage, type LangGraphRunnableConfig } from "./config.js";
import { adaptNode, adaptRouter, type NodeAction } from "./node-adapter.js";
import { compatSchema } from "./state-schema.js";
import { isZodObject, zodDefinition } from "./zod-state.js";

/**
 * What a state schema may be given as: an `Annotation.Root`, its `.spec`, or a zod object.
 *
 * @example
 * const a: StateInput = MessagesAnnotation;
 */
export type StateInput = AnnotationRoot<StateDefinition> | StateDefinition | object;

/**
 * Options of `addNode`, as LangGraph takes them.
 *
 * @example
 * builder.addNode("fetch", fetchNode, { retryPolicy: { maxAttempts: 3 }, ends: ["review"] });
 */
export interface AddNodeOptions {
  /** The keys the node reads (an `Annotation.Root` or zod object); by default the whole state. */
  input?: StateInput;
  retryPolicy?: RetryPolicy;
  /** Nodes a `Command` from this node may go to, for validation and drawings. */
  ends?: readonly string[];
  metadata?: Record<string, unknown>;
  subgraphs?: unknown[];
  defer?: boolean;
}

/**
 * Options of `compile`, as LangGraph takes them.
 *
 * @example
 * const graph = builder.compile({ checkpointer: new MemorySaver(), store: new InMemoryStore(), interruptBefore: ["tools"] });
 */
export interface CompileOptions {
  /** Trellis's `MemorySaver` or a Trellis saver (SQLite, Postgres, Redis). */
  checkpointer?: CheckpointSaver | boolean;
  store?: Store;
  interruptBefore?: string[] | "*";
  interruptAfter?: string[] | "*";
  name?: string;
  description?: string;
}

/** Reads an Annotation.Root, a spec or a zod object as a state definition. @internal */
export function definitionOf(input: StateInput | undefined): StateDefinition | undefined {
  if (input === undefined) return undefined;
  if (input instanceof AnnotationRoot) return input.spec;
  if (isZodObject(input)) return zodDefinition(input);
  return input as StateDefinition;
}

function isSchemaOptions(
  value: object,
): value is { stateSchema?: StateInput; input?: StateInput; output?: StateInput } {
  return (
    !(value instanceof AnnotationRoot) &&
    !isZodObject(value) &&
    ("stateSchema" in value || "input" in value || "output" in value)
  );
}

interface NodeEntry {
  action: NodeAction | CompiledStateGraph<StateDefinition>;
  options: AddNodeOptions;
}

/**
 * LangGraph's graph builder over an `Annotation.Root` (or a zod object, or `{ stateSchema, input,
 * output }`): nodes and routers are `(state, config)` functions or Runnables, messages are LangChain
 * classes. `compile()` returns a Trellis graph that keeps these semantics under every door.
 *
 * @example
 * const State = Annotation.Root({ topic: Annotation<string>(), draft: Annotation<string>() });
 * const graph = new StateGraph(State)
 *   .addNode("write", (state) => ({ draft: `About ${state.topic}` }))
 *   .addEdge(START, "write")
 *   .addEdge("write", END)
 *   .compile();
 * await graph.invoke({ topic: "ladders" }); // { topic: "ladders", draft: "About ladders" }
 */
export class StateGraph<SD extends StateDefinition = StateDefinition, S = StateType<SD>, U = UpdateType<SD>> {
  readonly #state: StateDefinition;
  readonly #input: StateDefinition | undefined;
  readonly #output: StateDefinition | undefined;
  readonly #configSchema: unknown;
  readonly #nodes = new Map<string, NodeEntry>();
  readonly #edges: Array<[string | string[], string]> = [];
  readonly #branches: Array<{ from: string; router: NodeAction; pathMap?: Record<string, string> | string[] }> = [];
  declare readonly _types: { state: S; update: U };

  constructor(state: AnnotationRoot<SD> | SD | StateInput, configSchema?: unknown) {
    if (state === null || typeof state !== "object") {
      throw new GraphValidationError("StateGraph needs a state: an Annotation.Root, a zod object or { stateSchema }.");
    }
    if (isSchemaOptions(state)) {
      const def = definitionOf(state.stateSchema) ?? definitionOf(state.input) ?? {};
      this.#state = { ...def };
      this.#input = definitionOf(state.input);
      this.#output = definitionOf(state.output);
    } else {
      this.#state = definitionOf(state) ?? {};
      this.#input = undefined;
      this.#output = undefined;
    }
    this.#configSchema = configSchema;
  }

  /** Adds a node: a function of `(state, config)`, a Runnable, or a compiled graph (a subgraph). */
  addNode(name: string, action: (state: S, config: LangGraphRunnableConfig) => unknown, options?: AddNodeOptions): this;
  addNode(
    name: string,
    // biome-ignore lint/suspicious/noExplicitAny: a node may read a Send argument of any type.
    action: ((state: any, config: LangGraphRunnableConfig) => unknown) | NodeAction | CompiledStateGraph<any>,
    options?: AddNodeOptions,
  ): this;
  // biome-ignore lint/suspicious/noExplicitAny: the record form takes nodes of any input type.
  addNode(nodes: Record<string, ((state: any, config: LangGraphRunnableConfig) => unknown) | NodeAction>): this;
  addNode(nameOrNodes: string | Record<string, NodeAction>, action?: unknown, options: AddNodeOptions = {}): this {
    if (typeof nameOrNodes === "object") {
      for (const [name, fn] of Object.entries(nameOrNodes)) this.addNode(name, fn);
      return this;
    }
    if (nameOrNodes in { ...this.#state, ...this.#input, ...this.#output }) {
      throw new GraphValidationError(
        `${nameOrNodes} is already being used as a state attribute (a.k.a. a channel), cannot also be used as a node name.`,
        { node: nameOrNodes },
      );
    }
    if (this.#nodes.has(nameOrNodes)) {
      throw new GraphValidationError(`Node \`${nameOrNodes}\` already present.`, { node: nameOrNodes });
    }
    const ok =
      typeof action === "function" ||
      action instanceof CompiledStateGraph ||
      typeof (action as { invoke?: unknown } | null)?.invoke === "function";
    if (!ok)
      throw new GraphValidationError(`Node "${nameOrNodes}" must be a function, a Runnable or a compiled graph.`);
    this.#nodes.set(nameOrNodes, { action: action as NodeEntry["action"], options });
    return this;
  }

  /** Adds an edge; with a list of sources, the target waits for all of them. */
  addEdge(from: string | string[], to: string): this {
    this.#edges.push([from, to]);
    return this;
  }

  /** Adds a conditional edge: `router(state, config)` returns node names, path-map keys, END or Sends. */
  addConditionalEdges(
    source: string | { source: string; path: NodeAction; pathMap?: Record<string, string> | string[] },
    // biome-ignore lint/suspicious/noExplicitAny: routers may read the state through any type.
    router?: ((state: any, config: LangGraphRunnableConfig) => unknown) | NodeAction,
    pathMap?: Record<string, string> | string[],
  ): this {
    if (typeof source === "object") return this.addConditionalEdges(source.source, source.path, source.pathMap);
    if (router === undefined) throw new GraphValidationError(`The conditional edge from "${source}" needs a router.`);
    this.#branches.push({ from: source, router, ...(pathMap !== undefined ? { pathMap } : {}) });
    return this;
  }

  /** Adds nodes that run one after another. */
  addSequence(nodes: Array<[string, NodeAction]> | Record<string, NodeAction>): this {
    const list = Array.isArray(nodes) ? nodes : Object.entries(nodes);
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

  /** Checks the graph and returns it ready to run (a Trellis graph with LangGraph's API). */
  compile(options: CompileOptions = {}): CompiledStateGraph<SD, S, U> {
    ensureConfigStorage();
    const schema = compatSchema(this.#state, this.#input, this.#output);

    const holder: { graph?: CompiledStateGraph<SD, S, U> } = {};
    const store = () => holder.graph?.store;
    const defaults = () => undefined;
    const builder = new CoreStateGraph(schema.channels, {
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(isStandardSchema(this.#configSchema) ? { configSchema: this.#configSchema } : {}),
    });
    for (const [name, { action, options: nodeOptions }] of this.#nodes) {
      const coreOptions: NodeOptions = {};
      if (nodeOptions.retryPolicy) coreOptions.retryPolicy = nodeOptions.retryPolicy;
      if (nodeOptions.ends) coreOptions.ends = nodeOptions.ends;
      if (nodeOptions.metadata) coreOptions.metadata = nodeOptions.metadata;
      if (action instanceof CompiledStateGraph) {
        builder.addNode(name, action.trellisGraph as CompiledGraph<StateSchema>, coreOptions);
        continue;
      }
      const input = definitionOf(nodeOptions.input);
      const { run, mapResult } = adaptNode(schema, action, {
        inputKeys: input ? Object.keys(input) : undefined,
        defaults,
      });
      coreOptions.mapResult = mapResult;
      builder.addNode(name, run as never, coreOptions);
    }
    for (const [from, to] of this.#edges) builder.addEdge(from, to);
    for (const branch of this.#branches) {
      const router = adaptRouter(schema, branch.router, { defaults, store });
      builder.addConditionalEdges(branch.from, router as never, branch.pathMap);
    }
    const saver = options.checkpointer;
    const core = builder.compile({
      ...(saver && typeof saver === "object" ? { checkpointer: checkSaver(saver) } : {}),
      ...(options.store !== undefined ? { store: options.store } : {}),
      ...(options.interruptBefore !== undefined ? { interruptBefore: options.interruptBefore } : {}),
      ...(options.interruptAfter !== undefined ? { interruptAfter: options.interruptAfter } : {}),
      ...(options.name !== undefined ? { name: options.name } : { name: "LangGraph" }),
    });
    const graph = new CompiledStateGraph<SD, S, U>(core, schema, {
      ...(options.description !== undefined ? { description: options.description } : {}),
      store: options.store,
    });
    holder.graph = graph;
    return graph;
  }
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === "object" && value !== null && "~standard" in value;
}

/** Refuses LangGraph's own savers (their data and format are out of scope) with what to use instead. */
function checkSaver(saver: CheckpointSaver): CheckpointSaver {
  const s = saver as unknown as { getTuple?: unknown; get?: unknown; acquireLease?: unknown };
  if (typeof s.getTuple === "function" && typeof s.acquireLease !== "function") {
    throw new GraphValidationError(
      "This checkpointer is one of LangGraph.js's own savers, which Trellis does not read. Use MemorySaver from @trellis/langgraph, or a Trellis saver (@trellis/checkpoint-sqlite, -postgres, -redis).",
    );
  }
  return saver;
}
