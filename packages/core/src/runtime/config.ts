import { type Store, TrellisError } from "@trellis/checkpoint";

/**
 * When checkpoints are written.
 *
 * @example
 * const durability: Durability = "exit"; // write only when the run pauses or ends
 * await graph.invoke(input, { threadId, durability });
 */
export type Durability = "sync" | "async" | "exit";

/**
 * The authenticated user a run acts for, as a server resolved it from the request's credentials. Nodes
 * read it as `ctx.user`; a client cannot set it (the server refuses the keys that carry it).
 *
 * @example
 * builder.addNode("settings", (state, ctx) => ({ owner: ctx.user?.id ?? "anonymous" }));
 */
export interface RunUser {
  /** The user's id: the `user` of the server's credential that authenticated the request. */
  readonly id: string;
}

/**
 * Configuration of one run. LangGraph's `{ configurable: { thread_id, checkpoint_id } }` is accepted
 * too, so ported code works unchanged.
 *
 * @example
 * await graph.invoke(input, { threadId: "order-42", recursionLimit: 50 });
 * await graph.invoke(input, { configurable: { thread_id: "order-42" } }); // the same
 */
export interface RunConfig {
  /** The conversation or job this run belongs to. Required with a checkpointer. */
  threadId?: string;
  /** Start from this checkpoint instead of the latest: replays or forks the thread. */
  checkpointId?: string;
  /** Most supersteps this run may take. Default 25. */
  recursionLimit?: number;
  /** Cancels the run at once; the thread keeps its last checkpoint. */
  signal?: AbortSignal;
  /**
   * Drains the run: when aborted, the superstep in progress finishes and is stored, then the run stops
   * as if it had reached a breakpoint (status "interrupted", no interrupt values). `invoke(null, config)`
   * continues it. For graceful shutdown and for servers interrupting a busy thread.
   */
  drainSignal?: AbortSignal;
  /**
   * Continues a run whose process died mid-way, from the thread's latest checkpoint (pass `null` as
   * input): a pause the run had reached — a pending `interrupt()`, a breakpoint before the next nodes
   * or after the nodes that just ran — is kept (the run ends "interrupted" at once) instead of being
   * run past as a plain `invoke(null)` would. Set by servers that re-run a crashed run's attempt.
   */
  recover?: boolean;
  /** `sync` (default): each checkpoint is stored before the next step; `async`: in the background; `exit`: once, when the run stops. */
  durability?: Durability;
  /** Most tasks running at once. Default: no limit. */
  maxConcurrency?: number;
  /** Identifies the run in leases and metadata. */
  runId?: string;
  /**
   * Names this execution's hold on the thread (its lease owner), e.g. `"<runId>:attempt-<n>"`. Give
   * every attempt its own: an execution with another `leaseOwner` is a new holder with a higher epoch
   * and fences the previous one (whose writes then fail with `LEASE_LOST`, and whose run stops), while
   * two executions with the same `leaseOwner` in one process would share one lease. Default: the run id
   * plus a random nonce, so every execution is a new holder. The process's identity (host, pid, start
   * time) is added either way, so the lease is free at once for this host when the process dies.
   */
  leaseOwner?: string;
  /** Stored in the metadata of every checkpoint this run writes. */
  metadata?: Record<string, unknown>;
  /** Per-run breakpoints, added to those given at compile time. */
  interruptBefore?: readonly string[] | "*";
  interruptAfter?: readonly string[] | "*";
  /**
   * The run starts only when the thread's latest checkpoint is this one, and otherwise fails with
   * `RESUME_MISMATCH` having written nothing. A server sets it on a resume it accepted, so the answer
   * applies to the pause its client saw and to no later one.
   */
  expectedCheckpointId?: string;
  /**
   * Most bytes of state (as JSON) a checkpoint of this run may hold: a step that would grow it past
   * this fails with `PAYLOAD_TOO_LARGE` before anything of it is written. Default: no limit.
   */
  maxStateBytes?: number;
  /**
   * The long-term memory store nodes reach as `ctx.store` (and `getStore()`) in this run and its
   * subgraphs; overrides the one given to `compile({ store })`. A server passes its own here.
   */
  store?: Store;
  /**
   * The caller's W3C trace context (`{ traceparent, tracestate? }`): the run's OpenTelemetry span is
   * its child, so a run queued by a server and executed by a worker joins the request's trace. Without
   * it the run span is a child of the active span; an empty one makes the run a trace of its own.
   * See docs/observability.md.
   */
  traceContext?: Readonly<Record<string, string>>;
  /**
   * Who the run acts for: the authenticated owner of the run, set by a server (`null`: no user, as with
   * the server's auth off or a direct `invoke`). Nodes read it as `ctx.user`; subgraphs inherit it.
   */
  user?: RunUser | null;
  /** LangGraph's form: `thread_id`, `checkpoint_id`, and anything else nodes may read. */
  configurable?: { thread_id?: string; checkpoint_id?: string; [key: string]: unknown };
}

/** A config with defaults filled in. @internal */
export interface NormalizedConfig extends RunConfig {
  recursionLimit: number;
  durability: Durability;
  maxConcurrency: number;
}

/** @internal */
export function normalizeConfig(config: RunConfig | undefined): NormalizedConfig {
  const c = config ?? {};
  const threadId = c.threadId ?? c.configurable?.thread_id;
  const checkpointId = c.checkpointId ?? c.configurable?.checkpoint_id;
  const recursionLimit = c.recursionLimit ?? 25;
  if (!Number.isInteger(recursionLimit) || recursionLimit < 1) {
    throw new TrellisError(
      "INVALID_CONFIG",
      `recursionLimit must be a positive integer, got ${String(recursionLimit)}.`,
    );
  }
  const maxConcurrency = c.maxConcurrency ?? Number.POSITIVE_INFINITY;
  if (!(maxConcurrency >= 1)) {
    throw new TrellisError("INVALID_CONFIG", `maxConcurrency must be at least 1, got ${String(maxConcurrency)}.`);
  }
  const durability = c.durability ?? "sync";
  if (durability !== "sync" && durability !== "async" && durability !== "exit") {
    throw new TrellisError(
      "INVALID_CONFIG",
      `durability must be "sync", "async" or "exit", got ${String(durability)}.`,
    );
  }
  if (threadId !== undefined && (typeof threadId !== "string" || threadId === "")) {
    throw new TrellisError("INVALID_CONFIG", "threadId must be a non-empty string.");
  }
  if (c.leaseOwner !== undefined && (typeof c.leaseOwner !== "string" || c.leaseOwner === "")) {
    throw new TrellisError("INVALID_CONFIG", "leaseOwner must be a non-empty string.");
  }
  // Every key this adds comes first, the caller's keys are spread after them, then the added keys are
  // set again (they win). On V8 (Node 20) an object literal adding keys after a spread, or a key added
  // to a spread's copy, takes a slow path (~2 µs) and gives every object a hidden class of its own, so
  // each place the run reads its config from went megamorphic. Not `Object.assign`: a server's config
  // is parsed input, and a `__proto__` key would run its setter.
  let out: NormalizedConfig;
  if (threadId !== undefined && checkpointId !== undefined) {
    out = { threadId, checkpointId, recursionLimit, durability, maxConcurrency, ...c };
    out.threadId = threadId;
    out.checkpointId = checkpointId;
  } else if (threadId !== undefined) {
    out = { threadId, recursionLimit, durability, maxConcurrency, ...c };
    out.threadId = threadId;
  } else if (checkpointId !== undefined) {
    out = { checkpointId, recursionLimit, durability, maxConcurrency, ...c };
    out.checkpointId = checkpointId;
  } else {
    out = { recursionLimit, durability, maxConcurrency, ...c };
  }
  out.recursionLimit = recursionLimit;
  out.durability = durability;
  out.maxConcurrency = maxConcurrency;
  return out;
}
