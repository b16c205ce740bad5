/**
 * Intent classification and the routing functions (the seed's `router.py` and "Approval Gates").
 * Routers are pure: they read the state and return a path-map key, never write.
 */
import type { Intent } from "./contracts.js";
import type { PipelineState } from "./state.js";

/**
 * The seed's change keywords, matched as whole words.
 *
 * @example
 * CHANGE_WORDS.includes("provision"); // true
 */
export const CHANGE_WORDS = [
  "create",
  "delete",
  "update",
  "modify",
  "scale",
  "add",
  "remove",
  "deploy",
  "provision",
  "migrate",
  "upgrade",
  "change",
  "set",
  "enable",
  "disable",
] as const;

/**
 * The seed's query keywords, matched as whole words.
 *
 * @example
 * QUERY_WORDS.includes("describe"); // true
 */
export const QUERY_WORDS = [
  "list",
  "show",
  "get",
  "describe",
  "status",
  "check",
  "what",
  "how",
  "which",
  "where",
  "count",
  "find",
] as const;

/**
 * The seed's change words in the other forms people write them ("deleting", "removes", "set up",
 * "tear down", "spin up", "get rid of"), and the verbs it leaves out that ask for the same changes.
 * Past tenses ("were created") describe, they do not ask.
 */
const CHANGE_FORMS =
  /\b(?:(?:creat|delet|updat|modif|scal|remov|deploy|provision|migrat|upgrad|chang|enabl|disabl|decommission|destroy)(?:e|es|s|ies|y|ing)?|add(?:s|ing)?|set(?:s|ting)?(?:\s+up)?|spin(?:s|ning)?\s+up|stand\s+up|tear(?:s|ing)?\s+down|get\s+rid\s+of|turn(?:s|ing)?\s+(?:on|off)|suspend(?:s|ing)?|build(?:s|ing)?|launch(?:es|ing)?|make|configure|need|want|would\s+like|give\s+me|strip(?:s|ping)?|switch(?:es|ing)?\s+(?:on|off)|block(?:s|ing)?)\b|\b(?:i|we)'d\s+like\b/;
/** A question about what exists ("how many resources did we deploy?"): a query even with a change verb in it. */
const QUESTION_OPENING =
  /^\s*(?:how\s+(?:many|much)|which|what|did\s+(?:we|you|i)|do\s+(?:we|you|i)\s+have|have\s+(?:we|you)|are\s+there|is\s+there|where|when|who)\b/;
const CHANGE_PATTERNS = [...CHANGE_WORDS.map((w) => new RegExp(`\\b${w}\\b`)), CHANGE_FORMS];
const QUERY_PATTERNS = QUERY_WORDS.map((w) => new RegExp(`\\b${w}\\b`));

/**
 * Classifies a message as an infrastructure change, a query or conversation: a question about what
 * exists is a query; otherwise change words (in their many forms) win over query words, anything else
 * is conversation.
 *
 * @example
 * classifyIntent("create an S3 bucket for logs"); // "change"
 * classifyIntent("list the buckets in prd"); // "query"
 * classifyIntent("good morning"); // "conversation"
 */
export function classifyIntent(userInput: string): Intent {
  const lower = userInput.toLowerCase();
  if (QUESTION_OPENING.test(lower)) return "query";
  if (CHANGE_PATTERNS.some((p) => p.test(lower))) return "change";
  if (QUERY_PATTERNS.some((p) => p.test(lower))) return "query";
  return "conversation";
}

/**
 * Routes from the orchestrator by intent. Returns the intent itself: the path map is keyed
 * `change → planning`, `query → END`, `conversation → END`, as the seed's drawing labels the edges.
 *
 * @example
 * routeFromOrchestrator({ ...state, intent: "change" }); // "change"
 */
export function routeFromOrchestrator(state: Pick<PipelineState, "intent"> & { current_agent?: string }): Intent {
  const intent = state.intent ?? "conversation";
  // a change that names no resource was answered with a question (`current_agent: "clarify"`): END
  if (intent === "change") return state.current_agent === "clarify" ? "conversation" : "change";
  if (intent === "query") return "query";
  return "conversation";
}

/**
 * Routes from the plan gate: approved (or no approval needed), rejected, or still pending. An explicit
 * rejection is read first, so clearing `pending_approval` together with recording the answer (as the
 * seed's `stream_with_approval` does) cannot turn a rejection into an approval.
 *
 * @example
 * routeFromPlanApproval({ pending_approval: "plan", plan_approved: null }); // "pending"
 */
export function routeFromPlanApproval(
  state: Pick<PipelineState, "pending_approval" | "plan_approved">,
): "approved" | "rejected" | "pending" {
  const pending = state.pending_approval;
  const approved = state.plan_approved;
  if (approved === false) return "rejected";
  if (pending !== "plan") return "approved"; // no approval needed
  if (approved === true) return "approved";
  return "pending"; // wait for user input
}

/**
 * Routes from the review: passed, back to IaC while retries remain, or failed.
 *
 * @example
 * routeFromReview({ review_output: { status: "needs_revision", … }, retry_count: 1, max_retries: 3 }); // "needs_revision"
 */
export function routeFromReview(
  state: Pick<PipelineState, "review_output" | "retry_count" | "max_retries">,
): "passed" | "needs_revision" | "failed" {
  const review = state.review_output;
  const retryCount = state.retry_count ?? 0;
  const maxRetries = state.max_retries ?? 3;
  if (!review) return "failed";
  if (review.status === "passed") return "passed";
  if (review.status === "needs_revision") return retryCount < maxRetries ? "needs_revision" : "failed";
  return "failed";
}

/**
 * Routes from the deploy gate: a dry run skips deployment; otherwise approved, rejected, or pending.
 * (The seed's version also wrote `pending_approval = "deploy"` from inside the router; here the review
 * node sets it, and routers never write.)
 *
 * @example
 * routeFromDeployApproval({ dry_run: true, deploy_approved: null }); // "dry_run"
 */
export function routeFromDeployApproval(
  state: Pick<PipelineState, "dry_run" | "deploy_approved">,
): "approved" | "rejected" | "dry_run" | "pending" {
  if (state.dry_run) return "dry_run";
  if (state.deploy_approved === true) return "approved";
  if (state.deploy_approved === false) return "rejected";
  return "pending";
}
