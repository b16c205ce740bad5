/**
 * Seed 001 (infra-agent 4-agent pipeline), ported with stub agents for the tests. The graph definition
 * and the routing functions follow the seed's `graph.py` and `router.py`; the agents are scripted.
 */
import { channel, END, MemorySaver, type MessageLike, StateGraph, type StateOf } from "@trellis/core";

export type ReviewStatus = "passed" | "needs_revision" | "failed";

const schema = {
  request_id: channel.value(""),
  messages: channel.messages(),
  environment: channel.value("dev"),
  dry_run: channel.value(false),
  planning_output: channel.value<{ requirements: string[]; requires_approval: boolean } | null>(null),
  iac_output: channel.value<{ files: string[]; attempt: number } | null>(null),
  review_output: channel.value<{ status: ReviewStatus; findings: string[] } | null>(null),
  deployment_output: channel.value<{ deployed: boolean } | null>(null),
  current_agent: channel.value("orchestrator"),
  retry_count: channel.value(0),
  max_retries: channel.value(3),
  review_status: channel.value<ReviewStatus | null>(null),
  pending_approval: channel.value<"plan" | "deploy" | null>(null),
  cost_estimate: channel.value<string | null>(null),
  error: channel.value<string | null>(null),
  // Read by the seed's routers but missing from its TypedDict (LangGraph would drop them silently).
  intent: channel.value<"change" | "query" | "conversation" | null>(null),
  plan_approved: channel.value<boolean | null>(null),
  deploy_approved: channel.value<boolean | null>(null),
};
export type PipelineState = StateOf<typeof schema>;

function classifyIntent(input: string): "change" | "query" | "conversation" {
  const lower = input.toLowerCase();
  const change = ["create", "delete", "update", "modify", "scale", "add", "remove", "deploy", "provision"];
  const query = ["list", "show", "get", "describe", "status", "check", "what", "how", "which"];
  if (change.some((w) => new RegExp(`\\b${w}\\b`).test(lower))) return "change";
  if (query.some((w) => new RegExp(`\\b${w}\\b`).test(lower))) return "query";
  return "conversation";
}

function routeFromOrchestrator(state: PipelineState) {
  const intent = state.intent ?? "conversation";
  if (intent === "change") return "planning";
  if (intent === "query") return "query";
  return "conversation";
}

function routeFromPlanApproval(state: PipelineState) {
  if (state.pending_approval !== "plan") return "approved";
  if (state.plan_approved === true) return "approved";
  if (state.plan_approved === false) return "rejected";
  return "pending";
}

function routeFromReview(state: PipelineState) {
  const review = state.review_output;
  if (!review) return "failed";
  if (review.status === "passed") return "passed";
  if (review.status === "needs_revision") return state.retry_count < state.max_retries ? "needs_revision" : "failed";
  return "failed";
}

function routeFromDeployApproval(state: PipelineState) {
  if (state.dry_run) return "dry_run";
  if (state.deploy_approved === true) return "approved";
  if (state.deploy_approved === false) return "rejected";
  return "pending";
}

/** The last user message. (The seed reads `messages[-1]`, which after a planning summary is the AI's.) */
const last = (messages: MessageLike[]) => String(messages.filter((m) => m.role === "user").at(-1)?.content ?? "");

/** The pipeline; `reviews` scripts the Review Agent's verdicts, one per call (then "passed"). */
export function buildPipeline(
  saver: MemorySaver = new MemorySaver(),
  reviews: ReviewStatus[] = [],
  options: { interruptBefore?: string[] } = {},
) {
  const trace: string[] = [];
  const script = reviews.slice();
  const graph = new StateGraph(schema)
    .addNode("orchestrator", (state) => {
      trace.push("orchestrator");
      const intent = classifyIntent(last(state.messages));
      if (intent === "change") return { intent, current_agent: "planning" };
      const content = intent === "query" ? `Status of ${state.environment}: all green` : "Hello! How can I help?";
      return { intent, messages: [{ role: "ai", content }] };
    })
    .addNode("planning", (state) => {
      trace.push("planning");
      const requires_approval = state.environment === "prd";
      return {
        planning_output: { requirements: [`do: ${last(state.messages)}`], requires_approval },
        current_agent: "plan_approval",
        pending_approval: requires_approval ? "plan" : null,
        cost_estimate: "$12/month",
        messages: [{ type: "ai", content: "Plan: 1 requirement" }],
      };
    })
    .addNode("plan_approval", () => {
      trace.push("plan_approval");
    })
    .addNode("iac", (state) => {
      trace.push("iac");
      return { iac_output: { files: ["main.bicep"], attempt: state.retry_count + 1 }, current_agent: "review" };
    })
    .addNode("review", (state) => {
      trace.push("review");
      const status = script.shift() ?? "passed";
      return {
        review_output: { status, findings: status === "passed" ? [] : ["missing tags"] },
        review_status: status,
        ...(status === "needs_revision" ? { retry_count: state.retry_count + 1 } : {}),
      };
    })
    .addNode("deploy_approval", () => {
      trace.push("deploy_approval");
    })
    .addNode("deploy_validate", () => {
      trace.push("deploy_validate");
      return { deployment_output: { deployed: true }, current_agent: "end" };
    })
    .addNode("rejected", () => {
      trace.push("rejected");
      return { messages: [{ role: "assistant", content: "Rejected by the user." }], error: "rejected" };
    })
    .addNode("end_success", (state) => {
      trace.push("end_success");
      return {
        messages: [{ role: "assistant", content: state.dry_run ? "Dry run complete." : "Deployed." }],
        current_agent: "end",
      };
    })
    .addNode("end_failure", (state) => {
      trace.push("end_failure");
      const findings = state.review_output?.findings.length ?? 0;
      return {
        messages: [
          {
            role: "assistant",
            content: `Pipeline failed after ${state.retry_count} retries.\nError: ${state.error ?? "Unknown error"}\nReview findings: ${findings} issues\n`,
          },
        ],
      };
    })
    .setEntryPoint("orchestrator")
    .addConditionalEdges("orchestrator", routeFromOrchestrator, { planning: "planning", query: END, conversation: END })
    .addEdge("planning", "plan_approval")
    .addConditionalEdges("plan_approval", routeFromPlanApproval, {
      approved: "iac",
      rejected: "rejected",
      pending: END,
    })
    .addEdge("iac", "review")
    .addConditionalEdges("review", routeFromReview, {
      passed: "deploy_approval",
      needs_revision: "iac",
      failed: "end_failure",
    })
    .addConditionalEdges("deploy_approval", routeFromDeployApproval, {
      approved: "deploy_validate",
      rejected: "rejected",
      dry_run: "end_success",
      pending: END,
    })
    .addEdge("deploy_validate", "end_success")
    .addEdge("rejected", END)
    .addEdge("end_success", END)
    .addEdge("end_failure", END)
    .compile({ checkpointer: saver, name: "infra_pipeline", ...options });
  return { graph, trace };
}

export function initial(userInput: string, opts: { dryRun?: boolean; environment?: string } = {}) {
  return {
    request_id: "req-1",
    messages: [{ type: "human", content: userInput }],
    environment: opts.environment ?? "dev",
    dry_run: opts.dryRun ?? false,
    current_agent: "orchestrator",
    retry_count: 0,
    max_retries: 3,
  };
}
