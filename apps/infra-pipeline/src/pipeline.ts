/**
 * `InfraPipeline` — the seed's wrapper with streaming support: start a request, stream its progress
 * node by node, and resume it at an approval gate. One thread per request (thread id = request id), so
 * a request paused at a gate can be answered from another process hours later.
 */
import { Command, type Interrupt } from "@trellis/core";
import { requestIdGenerator } from "./app-config.js";
import type { ApprovalRequest } from "./approval-gates.js";
import type { Environment } from "./contracts.js";
import type { PipelineGraph } from "./graph.js";
import { type ApprovalGate, initialState, type PipelineState } from "./state.js";

/**
 * One event of a pipeline run: a node's update, a progress line a node emitted, or the approval the
 * run now waits for.
 *
 * @example
 * for await (const e of pipeline.stream("create an S3 bucket for logs", { environment: "dev" })) {
 *   if (e.type === "update") console.log(`${e.node}:`);
 * }
 */
export type PipelineEvent =
  | { type: "update"; node: string; update: Partial<PipelineState> }
  | { type: "progress"; node: string; text: string }
  | { type: "approval"; request: ApprovalRequest; interruptId: string };

/**
 * How a request ended (or where it stands).
 *
 * @example
 * const outcome: PipelineOutcome = "awaiting_approval";
 */
export type PipelineOutcome =
  | "answered"
  | "awaiting_approval"
  | "rejected"
  | "applied"
  | "planned"
  | "refused"
  | "dry_run_complete"
  | "failed"
  | "incomplete";

/**
 * A thread's state as the CLI and tests read it.
 *
 * @example
 * const s = await pipeline.status("req-1");
 * if (s.outcome === "awaiting_approval") console.log(s.approval?.question);
 */
export interface PipelineStatus {
  threadId: string;
  values: PipelineState;
  outcome: PipelineOutcome;
  /** The gate waiting for an answer, if any. */
  gate: ApprovalGate | undefined;
  /** What the gate asks, when the run paused on its interrupt. */
  approval: ApprovalRequest | undefined;
  next: string[];
}

/**
 * Options of {@link InfraPipeline.stream}.
 *
 * @example
 * pipeline.stream("create an SQS queue for orders", { environment: "tst", dryRun: true });
 */
export interface StreamRequestOptions {
  environment?: Environment;
  dryRun?: boolean;
  /** Default: a new request id. */
  requestId?: string;
  signal?: AbortSignal;
}

/**
 * The seed's `InfraPipeline` over a compiled pipeline graph with a checkpointer.
 *
 * @example
 * const pipeline = new InfraPipeline(createPipelineGraph({ checkpointer: new MemorySaver() }));
 * for await (const e of pipeline.stream("create an S3 bucket for logs in prd with versioning", { environment: "prd" })) …
 * for await (const e of pipeline.streamWithApproval(requestId, true)) …
 */
export class InfraPipeline {
  readonly graph: PipelineGraph;
  readonly #newRequestId: () => string;
  #lastRequestId: string | undefined;

  constructor(graph: PipelineGraph, options: { newRequestId?: () => string } = {}) {
    if (!graph.checkpointer) {
      throw new Error("InfraPipeline needs a graph compiled with a checkpointer: approvals resume a saved thread.");
    }
    this.graph = graph;
    this.#newRequestId = options.newRequestId ?? requestIdGenerator();
  }

  /** The request id (and thread id) of the last `stream` call. */
  get lastRequestId(): string | undefined {
    return this.#lastRequestId;
  }

  /** Starts a request and streams its run until it ends or waits for an approval. */
  stream(userInput: string, options: StreamRequestOptions = {}): AsyncGenerator<PipelineEvent> {
    const requestId = options.requestId ?? this.#newRequestId();
    this.#lastRequestId = requestId;
    const input = initialState({
      userInput,
      requestId,
      environment: options.environment ?? "dev",
      dryRun: options.dryRun ?? false,
    });
    return this.#run(input, requestId, options.signal);
  }

  /**
   * Answers the gate a request waits at and streams the rest of its run. A run paused on the gate's
   * interrupt is resumed with the answer; a run that ended with the approval pending (the seed's
   * `pending → END`) is continued as if the gate had recorded the answer.
   */
  async *streamWithApproval(threadId: string, approved: boolean, signal?: AbortSignal): AsyncGenerator<PipelineEvent> {
    const status = await this.status(threadId);
    if (status.approval) {
      yield* this.#run(new Command({ resume: approved }), threadId, signal);
      return;
    }
    if (status.gate === undefined || status.next.length > 0) {
      throw new Error(`Request ${threadId} is not waiting for an approval (it is ${status.outcome}).`);
    }
    const gate = status.gate;
    await this.graph.updateState(
      { threadId },
      gate === "plan"
        ? { plan_approved: approved, pending_approval: null }
        : { deploy_approved: approved, pending_approval: null },
      gate === "plan" ? "plan_approval" : "deploy_approval",
    );
    yield* this.#run(null, threadId, signal);
  }

  /** Where a request stands. */
  async status(threadId: string): Promise<PipelineStatus> {
    const snapshot = await this.graph.getState({ threadId });
    const interrupt = snapshot.interrupts[0] as Interrupt<ApprovalRequest> | undefined;
    const values = snapshot.values;
    const approval = interrupt?.value;
    const gate = approval?.gate ?? (snapshot.next.length === 0 ? (values.pending_approval ?? undefined) : undefined);
    return { threadId, values, outcome: outcomeOf(values, gate, snapshot.next), gate, approval, next: snapshot.next };
  }

  async *#run(input: unknown, threadId: string, signal: AbortSignal | undefined): AsyncGenerator<PipelineEvent> {
    const stream = this.graph.stream(input as never, {
      threadId,
      streamMode: ["updates", "custom"],
      ...(signal ? { signal } : {}),
    });
    for await (const chunk of stream) {
      const [mode, data] = chunk as [string, unknown];
      if (mode === "custom") {
        const { node, text } = data as { node?: unknown; text?: unknown };
        if (typeof node === "string" && typeof text === "string") yield { type: "progress", node, text };
        continue;
      }
      for (const [node, update] of Object.entries(data as Record<string, unknown>)) {
        if (node === "__interrupt__") {
          for (const i of update as Interrupt<ApprovalRequest>[])
            yield { type: "approval", request: i.value, interruptId: i.id };
        } else {
          yield { type: "update", node, update: (update ?? {}) as Partial<PipelineState> };
        }
      }
    }
  }
}

/**
 * How a request ended, from its state.
 *
 * @example
 * outcomeOf(values, undefined, []); // "applied"
 */
export function outcomeOf(
  values: PipelineState,
  gate: ApprovalGate | undefined,
  next: readonly string[],
): PipelineOutcome {
  if (gate !== undefined) return "awaiting_approval";
  if (next.length > 0) return "incomplete";
  switch (values.current_agent) {
    case "rejected":
      return "rejected";
    case "clarify":
      return "answered";
    case "end_failure":
      return "failed";
    case "end_success":
      if (values.dry_run) return "dry_run_complete";
      if (values.deployment_output?.status === "applied") return "applied";
      if (values.deployment_output?.status === "planned") return "planned";
      return values.deployment_output?.status === "refused" ? "refused" : "failed";
    default:
      return values.intent === "query" || values.intent === "conversation" ? "answered" : "incomplete";
  }
}
