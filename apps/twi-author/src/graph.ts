/**
 * The seed's graph: nine nodes, the seed's topology, two pauses (`review` and `approve` ask with
 * LangChain's human-in-the-loop request, `review-request.ts`; the seed's state-update answer still
 * works), and the paused-input policy `reject`.
 *
 *   intent ├── generate_twi / edit_twi → process_input → generate → review ⏸
 *          ├── question                               → generate → review ⏸
 *          └── unknown                                              → clarify → END
 *   review ├── approved           → approve ⏸ ├── approved → output → audit → END
 *          │                                   ├── edited   → review ⏸ (a new draft is reviewed again)
 *          │                                   └── rejected → END (nothing published)
 *          ├── revision_requested → revise → generate → review ⏸   (3 revisions; the 4th request → approve ⏸)
 *          ├── rejected           → END
 *          └── approved, but the draft is not an instruction → review ⏸ again (re-asked, nothing published)
 */
import { type CheckpointSaver, type Clock, END, START, StateGraph, systemClock } from "@trellis/core";
import type { ChatModel } from "@trellis/models";
import type { AuditStore } from "./audit/audit-store.js";
import { DecisionError } from "./decisions.js";
import { checkTypedInput, createNodes } from "./nodes.js";
import type { PdfRenderer } from "./pdf/twi-pdf-renderer.js";
import { type AgentState, agentStateSchema, MAX_REVISIONS, TWI_INPUT_KEYS } from "./state.js";
import type { BlobStorage } from "./storage/blob-storage.js";

/**
 * What the nodes call: the LLM, the PDF renderer, blob storage, the audit store, and a clock.
 *
 * @example
 * const services: TwiServices = { model: createOfflineTwiModel(), pdf: new HtmlPdfRenderer(), blobs, audit };
 */
export interface TwiServices {
  model: ChatModel;
  pdf: PdfRenderer;
  blobs: BlobStorage;
  audit: AuditStore;
  clock?: Clock;
}

/**
 * Options of {@link buildTwiGraph}.
 *
 * @example
 * buildTwiGraph(services, { checkpointer: new SqliteSaver({ filename: "twi.sqlite" }) });
 */
export interface BuildGraphOptions {
  /** Where the paused conversations live. Without one the graph cannot pause. */
  checkpointer?: CheckpointSaver;
}

/**
 * The seed's `route_intent` edge.
 *
 * @example
 * routeIntent({ intent: "question" } as AgentState); // "question"
 */
export function routeIntent(state: AgentState): "generate_twi" | "edit_twi" | "question" | "unknown" {
  return state.intent ?? "unknown";
}

/**
 * The edge after the review pause: the status the reviewer's card wrote.
 *
 * @example
 * afterReview({ status: "rejected" } as AgentState); // "rejected"
 */
export function afterReview(state: AgentState): "approved" | "revision_requested" | "rejected" | "ask_again" {
  if (state.status === "approved" || state.status === "revision_requested" || state.status === "rejected") {
    return state.status;
  }
  // The review node turned an approval of a non-instruction back into a waiting review: pause again.
  if (state.status === "review_needed") return "ask_again";
  // The review node refuses other statuses before this edge runs; keep the type total.
  return "rejected";
}

/**
 * The seed's `after_revision()` edge: back to `generate` for the first three revisions; the fourth
 * request goes straight to final approval.
 *
 * @example
 * afterRevision({ revision_count: 4 } as AgentState); // "approve"
 */
export function afterRevision(state: AgentState): "generate" | "approve" {
  return state.revision_count > MAX_REVISIONS ? "approve" : "generate";
}

/**
 * The edge after the final approval: publish only what a person approved at this pause (a status
 * `approved` with its time); a rejection ends the conversation with nothing published; an edit goes
 * back to the review.
 *
 * @example
 * afterApprove({ status: "rejected" } as AgentState); // "rejected"
 */
export function afterApprove(state: AgentState): "approved" | "rejected" | "review" {
  // an edit at the final approval is a new draft: back to the review pause
  if (state.status === "review_needed") return "review";
  return state.status === "approved" && state.approval_timestamp ? "approved" : "rejected";
}

/**
 * The state a failed node leaves (`compile({ onNodeError })`): the seed's status `"error"` for a
 * failure of the work (the model unreachable, the PDF, the blob store, the audit store), so a failed
 * conversation shows as one; a continue that succeeds writes the node's own status over it. A refused
 * answer (`DecisionError`) or input (`INVALID_ARGUMENT`) is not a failure of the conversation: nothing
 * is written.
 *
 * @example
 * statusOnError(new Error("Bot Connector answered 503")); // { status: "error" }
 */
export function statusOnError(error: unknown): { status: "error" } | undefined {
  if (error instanceof DecisionError) return undefined;
  if ((error as { code?: unknown } | null)?.code === "INVALID_ARGUMENT") return undefined;
  return { status: "error" };
}

/**
 * Builds and compiles the graph.
 *
 * @example
 * const graph = buildTwiGraph(services, { checkpointer });
 * await graph.invoke(initialState(start), { threadId: start.conversation_id }); // pauses at review
 */
export function buildTwiGraph(services: TwiServices, options: BuildGraphOptions = {}) {
  const nodes = createNodes({ ...services, clock: services.clock ?? systemClock });
  return new StateGraph(agentStateSchema, { input: TWI_INPUT_KEYS })
    .addNode("intent", nodes.intent)
    .addNode("process_input", nodes.processInput)
    .addNode("generate", nodes.generate)
    .addNode("review", nodes.review)
    .addNode("revise", nodes.revise)
    .addNode("approve", nodes.approve)
    .addNode("output", nodes.output)
    .addNode("audit", nodes.audit)
    .addNode("clarify", nodes.clarify)
    .addEdge(START, "intent")
    .addConditionalEdges("intent", routeIntent, {
      generate_twi: "process_input",
      edit_twi: "process_input",
      question: "generate",
      unknown: "clarify",
    })
    .addEdge("process_input", "generate")
    .addEdge("generate", "review")
    .addConditionalEdges("review", afterReview, {
      approved: "approve",
      revision_requested: "revise",
      rejected: END,
      ask_again: "review",
    })
    .addConditionalEdges("revise", afterRevision, { generate: "generate", approve: "approve" })
    .addConditionalEdges("approve", afterApprove, { approved: "output", rejected: END, review: "review" })
    .addEdge("output", "audit")
    .addEdge("audit", END)
    .addEdge("clarify", END)
    .compile({
      name: "twi-author",
      // The pauses are interrupt()s inside `review` and `approve` (not the seed's interruptBefore), so
      // stock UIs see what is to be approved (README: "The two pauses").
      // A new input while a review or the final approval waits is refused, whatever the door: a
      // decision is an explicit answer to the pause it was shown for (README: "Input while a pause
      // waits").
      onInputWhilePaused: "reject",
      // typed fields a caller writes are checked by their channels' schemas (state.ts); this checks the
      // whole state, so a field left out (no message) is refused too — before anything is written
      validateState: checkTypedInput,
      // the seed's status "error" on a failed step; continuing the conversation runs the step again
      onNodeError: statusOnError,
      ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}),
    });
}

/**
 * The compiled graph's type.
 *
 * @example
 * function run(graph: TwiGraph) {}
 */
export type TwiGraph = ReturnType<typeof buildTwiGraph>;
