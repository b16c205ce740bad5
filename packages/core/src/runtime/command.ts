/**
 * Marks of the control-flow classes, shared through the global symbol registry: a value made by one
 * copy of `@trellis/core` is recognised by another (a graph built against a second copy, a server
 * bundling its own), where a plain `instanceof` would say no.
 */
const SEND = Symbol.for("trellis.send");
const COMMAND = Symbol.for("trellis.command");
const GRAPH_INTERRUPT = Symbol.for("trellis.graph-interrupt");
const PARENT_COMMAND = Symbol.for("trellis.parent-command");

/** True when `value` carries the brand `mark` (set by any copy of the package). */
function branded(value: unknown, mark: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[mark] === true;
}

/**
 * A packet for one node with its own input, returned by a router or in a `Command`'s `goto`. Each Send
 * becomes one task in the next superstep; the node receives `arg` instead of the state.
 *
 * @example
 * builder.addConditionalEdges("plan", (s) => s.topics.map((t) => new Send("write", { topic: t })));
 */
export class Send<A = unknown> {
  /** `instanceof Send` holds for a Send made by any copy of the package. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, SEND);
  }

  constructor(
    readonly node: string,
    readonly arg: A,
  ) {
    Object.defineProperty(this, SEND, { value: true });
  }
}

/**
 * Where a node may route: a node name, END, or a Send packet.
 *
 * @example
 * const next: Goto[] = ["summarise", new Send("grade", { doc })];
 * return new Command({ goto: next });
 */
export type Goto = string | Send;

/**
 * Arguments of {@link Command}.
 *
 * @example
 * const init: CommandInit<UpdateOf<typeof schema>> = { update: { approved: true }, goto: "publish" };
 * return new Command(init);
 */
export interface CommandInit<U = Record<string, unknown>> {
  /** Resume value for the pending interrupt, or a map from interrupt id to value. */
  resume?: unknown;
  /** A state update, applied through the channels' reducers. */
  update?: U;
  /** Nodes (or Sends) to run next, in addition to the node's static edges. */
  goto?: Goto | readonly Goto[];
  /** `Command.PARENT` to route in the graph that contains this subgraph. */
  graph?: string;
}

/**
 * Returned by a node to update state and choose where to go in one step, or passed to `invoke` to resume
 * a paused thread.
 *
 * @example
 * // from a node: hand off to another agent of the parent graph
 * return new Command({ goto: "reporting", update: { currentAgent: "reporting" }, graph: Command.PARENT });
 * // from the caller: answer the pending interrupt
 * await graph.invoke(new Command({ resume: "approved" }), { threadId });
 */
export class Command<U = Record<string, unknown>> {
  /** Use as `graph` to route to a node of the parent graph. */
  static readonly PARENT = "__parent__";

  /** `instanceof Command` holds for a Command made by any copy of the package. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, COMMAND);
  }

  // `declare`: no class field is emitted, so `resume` is an own property only when one was given
  // (`hasResume` asks exactly that; a field initialised to undefined made every Command a resume).
  declare readonly resume?: unknown;
  readonly update?: U;
  readonly goto: readonly Goto[];
  readonly graph?: string;

  constructor(init: CommandInit<U>) {
    Object.defineProperty(this, COMMAND, { value: true });
    if ("resume" in init) this.resume = init.resume;
    if (init.update !== undefined) this.update = init.update;
    this.goto = init.goto === undefined ? [] : Array.isArray(init.goto) ? init.goto.slice() : [init.goto as Goto];
    if (init.graph !== undefined) this.graph = init.graph;
  }

  /** True when this command carries a resume value. */
  get hasResume(): boolean {
    return "resume" in this;
  }
}

/**
 * An interrupt waiting for an answer.
 *
 * @example
 * const { interrupts } = await graph.getState({ threadId });
 * const first: Interrupt | undefined = interrupts[0];
 * if (first) await graph.invoke(new Command({ resume: { [first.id]: "approve" } }), { threadId });
 */
export interface Interrupt<V = unknown> {
  /** Unique id; answer with `new Command({ resume: { [id]: value } })`. */
  id: string;
  value: V;
  /** The node that paused. */
  node: string;
  /** The subgraph namespace it paused in ("" for the root graph). */
  namespace: string;
}

/**
 * Thrown by `interrupt()` to pause the task; the runtime catches it. Code that catches errors broadly
 * must let it through (see `isControlFlowSignal`). A node may throw one carrying several interrupts,
 * e.g. gathered from parallel tool calls.
 *
 * @example
 * if (paused.length) throw new GraphInterrupt(paused.flatMap((e) => e.interrupts));
 */
export class GraphInterrupt extends Error {
  /** `instanceof GraphInterrupt` holds for one thrown by any copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, GRAPH_INTERRUPT);
  }

  constructor(readonly interrupts: Interrupt[]) {
    // A pause is control flow, not a failure: no stack trace, whose capture was most of the cost of
    // every `interrupt()` (the runtime catches it; a broad catch still sees the message). Error's
    // constructor does not throw, so the limit is always put back.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`Graph interrupted (${interrupts.length} pending)`);
    Error.stackTraceLimit = limit;
    Object.defineProperty(this, GRAPH_INTERRUPT, { value: true });
    this.name = "GraphInterrupt";
  }
}

/** Thrown by a subgraph run to hand a `Command.PARENT` to the task that runs it. @internal */
export class ParentCommand extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, PARENT_COMMAND);
  }

  /**
   * `command` came out of a subgraph this task ran and is meant for this task's graph (true), or the
   * node itself returned `Command.PARENT` and it is for the graph above (false).
   */
  constructor(
    readonly command: Command,
    readonly arrived = false,
  ) {
    super("Command for the parent graph");
    Object.defineProperty(this, PARENT_COMMAND, { value: true });
    this.name = "ParentCommand";
  }
}
