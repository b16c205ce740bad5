import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";
import { currentScope, type NodeContext } from "./node-context.js";

/**
 * The diagnostics channel model calls publish their token usage on (`@trellis/models` does, for every
 * `ChatModel` built on `BaseChatModel`): `{ provider, model, usage: { inputTokens, outputTokens,
 * totalTokens, … } }`. A model of your own publishes the same message to be counted.
 *
 * @example
 * import { channel } from "node:diagnostics_channel";
 * channel(MODEL_USAGE_CHANNEL).publish({ provider: "acme", model: "m1", usage: { inputTokens: 9, outputTokens: 3, totalTokens: 12 } });
 */
export const MODEL_USAGE_CHANNEL = "trellis:model-usage";

/**
 * Tokens counted for a run, a node or a model.
 *
 * @example
 * const events = graph.streamEvents(input, { threadId });
 * for await (const e of events) forward(e);
 * const agent: TokenCounts | undefined = (await events.outcome).usage?.byNode.agent;
 * console.log(agent?.calls, agent?.totalTokens, agent?.costUsd);
 */
export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Model calls counted. */
  calls: number;
  /** Estimated cost in US dollars, when a price is known for every model counted (see {@link ModelPrices}). */
  costUsd?: number;
}

/**
 * What the model calls of one run used: in total, per node (the node that made the call; a
 * subgraph's node as `subgraph-node/node`), and per model (`provider:model`). Calls replayed from a
 * durable step are not counted again: they cost nothing the second time.
 *
 * @example
 * const events = graph.streamEvents(input, config);
 * for await (const e of events) forward(e);
 * const { usage } = await events.outcome;
 * console.log(usage?.totalTokens, usage?.byNode.agent?.outputTokens);
 */
export interface RunUsage extends TokenCounts {
  byNode: Record<string, TokenCounts>;
  byModel: Record<string, TokenCounts>;
}

/**
 * US dollars per million tokens, per model: the key is the model id (`gpt-4o-mini`) or
 * `provider:model`; `*` applies to any model not listed.
 *
 * @example
 * const prices: ModelPrices = { "gpt-4o-mini": { input: 0.15, output: 0.6 } };
 */
export type ModelPrices = Readonly<Record<string, { input: number; output: number; cachedInput?: number }>>;

/**
 * The diagnostics channel tool calls publish on when they end (`@trellis/models`' `runTool`, so every
 * `ToolNode` call): `{ tool, callId, startedAt, durationMs, status: "ok" | "error" | "interrupted" }`.
 * Published only while someone listens: a run whose {@link UsageTally} has an `onCall` listener.
 *
 * @example
 * import { channel } from "node:diagnostics_channel";
 * const calls = channel(TOOL_CALL_CHANNEL);
 * if (calls.hasSubscribers) calls.publish({ tool: "search", callId: "c1", startedAt: Date.now() - 40, durationMs: 40, status: "ok" });
 */
export const TOOL_CALL_CHANNEL = "trellis:tool-call";

/** Where a call was made: the node's path, and the task of the root graph it ran inside. */
interface CallPlace {
  /** The node that made the call (`research/agent` inside a subgraph). */
  node: string;
  /** The task that made the call; undefined outside a node. */
  taskId: string | undefined;
  /** The root graph's task the call ran inside (the subgraph's parent task for a subgraph's call). */
  rootTaskId: string | undefined;
  /** When the call started (epoch ms) and how long it took; null when its reporter did not say. */
  startedAt: number;
  durationMs: number | null;
}

/**
 * A model or tool call as a run's {@link UsageTally} `onCall` listener hears it: where it was made,
 * when, and (a model call) its tokens and finish reason, (a tool call) how it ended. Never the prompt,
 * the reply, the arguments or the result.
 *
 * @example
 * const tally = new UsageTally({ onCall: (c) => console.log(c.kind, c.node, c.durationMs) });
 */
export type CallReport =
  | (CallPlace & {
      kind: "model";
      provider: string;
      model: string;
      inputTokens: number;
      outputTokens: number;
      totalTokens: number;
      finishReason: string | undefined;
    })
  | (CallPlace & { kind: "tool"; tool: string; status: "ok" | "error" | "interrupted" });

/**
 * Options of {@link UsageTally}.
 *
 * @example
 * new UsageTally({ onCall: (call) => timeline.call(call) });
 */
export interface UsageTallyOptions {
  /** Hears every model call counted and every tool call made while the tally counts (a server's timeline). */
  onCall?: (call: CallReport) => void;
}

interface Report {
  provider?: unknown;
  model?: unknown;
  usage?: { inputTokens?: unknown; outputTokens?: unknown; totalTokens?: unknown };
  startedAt?: unknown;
  durationMs?: unknown;
  finishReason?: unknown;
}

interface ToolReport {
  tool?: unknown;
  startedAt?: unknown;
  durationMs?: unknown;
  status?: unknown;
}

const tallies = new AsyncLocalStorage<UsageTally>();
let subscribed = false;
let toolsSubscribed = false;

function onReport(message: unknown): void {
  const tally = tallies.getStore();
  if (!tally) return;
  const report = message as Report;
  const ctx = currentScope()?.ctx;
  const node = ctx ? nodePath(ctx.namespace, ctx.node) : "(outside a node)";
  const provider = String(report.provider ?? "unknown");
  const model = String(report.model ?? "unknown");
  const counts = tally.add(node, `${provider}:${model}`, report.usage ?? {});
  const listener = tally.onCall;
  if (!listener) return;
  const finish = report.finishReason;
  // assigned in order onto one object (the runtime's own values, so `Object.assign` is safe): a literal
  // adding keys after a spread makes a new hidden class per call on V8
  const call = Object.assign({ kind: "model" as const }, placeOf(ctx, node, report), { provider, model }, counts, {
    finishReason: typeof finish === "string" ? finish : undefined,
  });
  listener(call);
}

function onToolReport(message: unknown): void {
  const listener = tallies.getStore()?.onCall;
  if (!listener) return;
  const report = message as ToolReport;
  const ctx = currentScope()?.ctx;
  const status: "error" | "interrupted" | "ok" =
    report.status === "error" || report.status === "interrupted" ? report.status : "ok";
  const node = ctx ? nodePath(ctx.namespace, ctx.node) : "(outside a node)";
  // as for a model call: assigned in order, not spread
  listener(
    Object.assign({ kind: "tool" as const }, placeOf(ctx, node, report), {
      tool: String(report.tool ?? "unknown"),
      status,
    }),
  );
}

function placeOf(ctx: NodeContext | undefined, node: string, report: Report | ToolReport): CallPlace {
  const duration = count(report.durationMs);
  const started = typeof report.startedAt === "number" && Number.isFinite(report.startedAt) ? report.startedAt : 0;
  const known = started > 0;
  return {
    node,
    taskId: ctx?.taskId,
    // a subgraph's namespace starts with its root task's segment: `node:taskId[:n]|…`
    rootTaskId: ctx ? (ctx.namespace === "" ? ctx.taskId : ctx.namespace.split("|")[0]?.split(":")[1]) : undefined,
    startedAt: known ? started : Date.now(),
    durationMs: known ? duration : null,
  };
}

/**
 * Adds up the usage model calls report while it counts (see {@link withUsageTally}).
 *
 * @example
 * const tally = new UsageTally();
 * await withUsageTally(tally, () => graph.invoke(input, config));
 * tally.toJSON({ "gpt-4o-mini": { input: 0.15, output: 0.6 } }).costUsd;
 */
export class UsageTally {
  /** Hears each call while the tally counts (see {@link UsageTallyOptions}). */
  readonly onCall: ((call: CallReport) => void) | undefined;
  readonly #byNode = new Map<string, TokenCounts>();
  readonly #byModel = new Map<string, TokenCounts>();
  readonly #total: TokenCounts = { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 };

  constructor(options: UsageTallyOptions = {}) {
    this.onCall = options.onCall;
  }

  /** Counts one model call of `node` to `model` (`provider:model`); returns the tokens it counted. */
  add(
    node: string,
    model: string,
    usage: Report["usage"] & object,
  ): { inputTokens: number; outputTokens: number; totalTokens: number } {
    const input = count(usage.inputTokens);
    const output = count(usage.outputTokens);
    const total = count(usage.totalTokens) || input + output;
    for (const counts of [this.#total, bucket(this.#byNode, node), bucket(this.#byModel, model)]) {
      counts.inputTokens += input;
      counts.outputTokens += output;
      counts.totalTokens += total;
      counts.calls += 1;
    }
    return { inputTokens: input, outputTokens: output, totalTokens: total };
  }

  get calls(): number {
    return this.#total.calls;
  }

  /** The counts so far, with costs when `prices` has a price for every model counted. */
  toJSON(prices?: ModelPrices): RunUsage {
    const byModel: Record<string, TokenCounts> = {};
    let cost: number | undefined = prices ? 0 : undefined;
    for (const [model, counts] of this.#byModel) {
      const price = prices ? priceOf(prices, model) : undefined;
      const c = { ...counts };
      if (price) {
        c.costUsd = round((counts.inputTokens * price.input + counts.outputTokens * price.output) / 1e6);
        if (cost !== undefined) cost += c.costUsd;
      } else cost = undefined;
      byModel[model] = c;
    }
    const byNode: Record<string, TokenCounts> = {};
    for (const [node, counts] of this.#byNode) byNode[node] = { ...counts };
    // assigned in order (not spread, see onModelReport): the total's counts, its cost when known, then the breakdowns
    const usage: TokenCounts & Partial<RunUsage> = Object.assign({}, this.#total);
    if (cost !== undefined) usage.costUsd = round(cost);
    usage.byNode = byNode;
    usage.byModel = byModel;
    return usage as RunUsage;
  }
}

function priceOf(prices: ModelPrices, key: string): { input: number; output: number } | undefined {
  const model = key.slice(key.indexOf(":") + 1);
  return prices[key] ?? prices[model] ?? prices["*"];
}

function round(usd: number): number {
  return Math.round(usd * 1e8) / 1e8;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function bucket(map: Map<string, TokenCounts>, key: string): TokenCounts {
  let counts = map.get(key);
  if (!counts) {
    counts = { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 };
    map.set(key, counts);
  }
  return counts;
}

/** `agent` in the root graph; `research/agent` for node `agent` of the subgraph run by node `research`. */
function nodePath(namespace: string, node: string): string {
  if (namespace === "") return node;
  return `${namespace
    .split("|")
    .map((part) => part.split(":")[0])
    .join("/")}/${node}`;
}

/**
 * Runs a root run counting its model usage (into the tally already counting, a server's, else its
 * own) and adds `usage` to its outcome when a model call was counted. @internal
 */
export async function countRunUsage<O extends object>(run: () => Promise<O>): Promise<O & { usage?: RunUsage }> {
  const tally = tallies.getStore() ?? new UsageTally();
  const outcome = await withUsageTally(tally, run);
  if (tally.calls === 0) return outcome;
  const usage = tally.toJSON();
  const counted = { usage, ...outcome }; // the key first, then set: a key added after a spread is slow on V8
  counted.usage = usage;
  return counted;
}

/** The tally of the run executing this code, if any. @internal */
export function currentUsageTally(): UsageTally | undefined {
  return tallies.getStore();
}

/**
 * Runs `fn` counting the model usage reported inside it into `tally` (a server wraps a whole attempt,
 * so a failed run's tokens are counted too). Subscribes to {@link MODEL_USAGE_CHANNEL} on first use,
 * and to {@link TOOL_CALL_CHANNEL} the first time a tally with an `onCall` listener counts (until then
 * tool calls publish nothing).
 *
 * @example
 * const tally = new UsageTally();
 * await withUsageTally(tally, () => graph.invoke(input, config));
 * tally.toJSON().totalTokens;
 */
export function withUsageTally<T>(tally: UsageTally, fn: () => T): T {
  if (!subscribed) {
    subscribe(MODEL_USAGE_CHANNEL, onReport);
    subscribed = true;
  }
  if (tally.onCall && !toolsSubscribed) {
    subscribe(TOOL_CALL_CHANNEL, onToolReport);
    toolsSubscribed = true;
  }
  return tallies.run(tally, fn);
}
