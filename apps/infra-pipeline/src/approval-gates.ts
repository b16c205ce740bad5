/**
 * The two approval gates' question and answer. The interrupt value is the app's own request (`gate`,
 * `question`, `details`… for the CLI, the studio and the app's clients) and, in the same object,
 * LangChain's human-in-the-loop request (`action_requests` / `review_configs`, both spellings), so a
 * stock UI (agent-chat-ui, `useStream`) offers approve / edit / reject buttons. Either answer is taken:
 * `true`/`"yes"`/`{ approved }`, or `{ decisions: [{ type: "approve" | "edit" | "reject" }] }`.
 */
import { hitlRequest, type ReviewDecisionType, readDecisions, type ToolReviewRequest } from "@trellis/agents";
import { interrupt } from "@trellis/core";
import { type Environment, PlanningOutput } from "./contracts.js";
import { followsNamingConvention, type PipelinePolicy } from "./policy.js";

/**
 * What an approval gate shows the person (the interrupt's value): the app's fields and LangChain's
 * human-in-the-loop request.
 *
 * @example
 * if (interrupt.value.gate === "plan") ask(interrupt.value.question);
 * interrupt.value.action_requests[0]?.name; // "infra_plan"
 */
export interface ApprovalRequest extends ToolReviewRequest {
  gate: "plan" | "deploy";
  question: string;
  request_id: string;
  environment: Environment;
  summary: string;
  details: string;
  reasons: string[];
  /**
   * Set when the gate asks again: why the previous answer was not taken (it was not a decision).
   * The pause stays until a decision arrives.
   */
  not_a_decision?: string;
}

/** The action name of each gate in the HITL request. */
export const GATE_ACTIONS = { plan: "infra_plan", deploy: "infra_deploy" } as const;

/** What each gate lets a person decide: a plan may be edited; a deployment is the reviewed files, as they are. */
export const GATE_DECISIONS: Record<ApprovalRequest["gate"], readonly ReviewDecisionType[]> = {
  plan: ["approve", "edit", "reject"],
  deploy: ["approve", "reject"],
};

/**
 * A gate's decision: approved (with the edited plan when the person edited it) or rejected (with
 * their message).
 *
 * @example
 * const d: GateDecision = { approved: false, message: "not in prd this week" };
 */
export interface GateDecision {
  approved: boolean;
  message?: string;
  /** The plan as the person edited and approved it (plan gate only). */
  plan?: PlanningOutput;
}

/**
 * Builds a gate's interrupt value: the app's fields plus the HITL request naming the gate's action,
 * its arguments and its allowed decisions.
 *
 * @example
 * gateRequest({ gate: "deploy", question: "Approve the deployment?", … }, { request_id, environment, files });
 */
export function gateRequest(base: Omit<ApprovalRequest, keyof ToolReviewRequest>, args: unknown): ApprovalRequest {
  const hitl = hitlRequest([
    {
      name: GATE_ACTIONS[base.gate],
      args,
      description: `${base.question}\n\n${base.summary}\n\n${base.details}`.trim(),
      allowedDecisions: GATE_DECISIONS[base.gate],
    },
  ]);
  return { ...base, ...hitl };
}

/**
 * Reads a person's yes/no answer to a gate: booleans, yes/no words, or `{ approved }`. Anything else
 * (null, "later") leaves the approval pending.
 *
 * @example
 * parseApproval("y"); // true
 * parseApproval({ approved: false }); // false
 * parseApproval(null); // undefined
 */
export function parseApproval(answer: unknown): boolean | undefined {
  if (typeof answer === "boolean") return answer;
  if (typeof answer === "string") {
    const a = answer.trim().toLowerCase();
    if (["y", "yes", "approve", "approved", "true", "ok"].includes(a)) return true;
    if (["n", "no", "reject", "rejected", "false"].includes(a)) return false;
    return undefined;
  }
  if (typeof answer === "object" && answer !== null && "approved" in answer) {
    return parseApproval((answer as { approved: unknown }).approved);
  }
  return undefined;
}

/**
 * Reads an answer to a gate: a yes/no ({@link parseApproval}) or HITL decisions. An `edit` at the plan
 * gate must name the same request and environment and leave a valid plan. Returns the decision, or why
 * the answer is not one.
 *
 * @example
 * readGateAnswer(request, { decisions: [{ type: "reject", message: "too costly" }] }, plan); // { decision: { approved: false, message: "too costly" } }
 */
export function readGateAnswer(
  request: ApprovalRequest,
  answer: unknown,
  plan: PlanningOutput | null,
  policy?: PipelinePolicy,
): { decision: GateDecision } | { reason: string } {
  if (typeof answer === "object" && answer !== null && "decisions" in answer) {
    const read = readDecisions(answer, [
      { name: GATE_ACTIONS[request.gate], allowedDecisions: GATE_DECISIONS[request.gate] },
    ]);
    if (!read.ok) return { reason: read.reason };
    const decision = read.decisions[0];
    if (decision?.type === "approve") return { decision: { approved: true } };
    if (decision?.type === "reject") {
      return { decision: { approved: false, ...(decision.message ? { message: decision.message } : {}) } };
    }
    if (decision?.type === "edit") return editedPlan(decision.editedAction ?? decision.edited_action, plan, policy);
    return { reason: `${JSON.stringify(decision)} is not a decision this gate takes.` };
  }
  const approved = parseApproval(answer);
  if (approved !== undefined) return { decision: { approved } };
  return {
    reason: `${JSON.stringify(answer) ?? String(answer)} is not a decision: answer yes or no (true/false, "yes"/"no", or { "approved": true|false }).`,
  };
}

/** Fields of a plan a person may edit at the gate. */
const EDITABLE = ["summary", "resources", "requirements", "acceptance_criteria", "cost_estimate"] as const;

function editedPlan(
  edited: { args: Record<string, unknown> } | undefined,
  plan: PlanningOutput | null,
  policy: PipelinePolicy | undefined,
): { decision: GateDecision } | { reason: string } {
  if (!plan) return { reason: "There is no plan to edit." };
  const args = edited?.args ?? {};
  for (const key of ["request_id", "environment"] as const) {
    if (key in args && args[key] !== plan[key]) {
      return {
        reason: `An edited plan keeps its ${key} (${JSON.stringify(plan[key])}); got ${JSON.stringify(args[key])}.`,
      };
    }
  }
  const changed = Object.fromEntries(EDITABLE.filter((k) => k in args).map((k) => [k, args[k]]));
  const parsed = PlanningOutput.safeParse({ ...plan, ...changed });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      reason: `The edited plan is not valid: ${issue?.path.join(".") || "plan"}: ${issue?.message ?? "invalid"}. Edit ${EDITABLE.join(", ")}.`,
    };
  }
  // the review would refuse a name that breaks the policy on every retry: refuse it here, once, saying why
  const misnamed = policy
    ? parsed.data.resources.find(
        (r) => r.action !== "delete" && !followsNamingConvention(policy, parsed.data.environment, r.name),
      )
    : undefined;
  if (misnamed && policy) {
    const expected = `${policy.project}-${parsed.data.environment}-<purpose>`;
    return {
      reason: `The edited plan names ${misnamed.kind} "${misnamed.name}", which breaks the naming policy: ${parsed.data.environment} names follow ${expected} (lowercase letters, digits and "-"). Rename it, or approve the plan as it was.`,
    };
  }
  return { decision: { approved: true, plan: parsed.data } };
}

/**
 * Asks at a gate until the answer is a decision: an answer that is not one ("maybe later", 42, null, a
 * malformed `{ decisions }`, an edit leaving an invalid plan) re-asks at the same gate with the reason,
 * and the pause stays — it never ends the run with the approval silently pending, and never acts on it.
 *
 * @example
 * const { approved } = askUntilDecided(request, plan);
 */
export function askUntilDecided(
  request: ApprovalRequest,
  plan: PlanningOutput | null = null,
  policy?: PipelinePolicy,
): GateDecision {
  let answer = interrupt(request);
  let read = readGateAnswer(request, answer, plan, policy);
  while ("reason" in read) {
    answer = interrupt({ ...request, not_a_decision: read.reason });
    read = readGateAnswer(request, answer, plan, policy);
  }
  return read.decision;
}
