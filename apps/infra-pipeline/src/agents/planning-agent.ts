/**
 * The Planning Agent: turns a request into requirements, acceptance criteria, a cost estimate and an
 * approval decision. Offline it uses the deterministic planner; with a model it asks the model for the
 * plan (validated by the `PlanningOutput` contract) and falls back to the offline plan if the model
 * never produces a valid one. Approval policy is never left to the model: prd and high impact always
 * require approval.
 */
import type { ChatModel } from "@trellis/models";
import { z } from "zod";
import {
  AcceptanceCriterion,
  type Environment,
  Impact,
  PlanningOutput,
  Requirement,
  ResourceSpec,
} from "../contracts.js";
import { generateStructured } from "../llm/structured-output.js";
import { buildPlan } from "../planning/plan-builder.js";
import { approvalReasons, type PipelinePolicy } from "../policy.js";

/** What the model fills in; the rest comes from the pipeline. */
const PlanDraft = z.object({
  summary: z.string(),
  resources: z.array(ResourceSpec),
  requirements: z.array(Requirement).min(1),
  acceptance_criteria: z.array(AcceptanceCriterion).min(1),
  cost_estimate: z.string(),
  impact: Impact,
  impact_reasons: z.array(z.string()),
  requires_approval: z.boolean(),
});

/**
 * Options of {@link PlanningAgent}.
 *
 * @example
 * new PlanningAgent({ environment: "prd", policy: DEFAULT_POLICY });
 */
export interface PlanningAgentOptions {
  environment: Environment;
  policy: PipelinePolicy;
  /** A model makes the agent LLM-backed; without one it plans offline. */
  model?: ChatModel | undefined;
  signal?: AbortSignal;
}

/**
 * The Planning Agent.
 *
 * @example
 * const plan = await new PlanningAgent({ environment: "prd", policy }).generatePlan(
 *   "create an S3 bucket for logs in prd with versioning", "req-1");
 */
export class PlanningAgent {
  readonly #options: PlanningAgentOptions;

  constructor(options: PlanningAgentOptions) {
    this.#options = options;
  }

  /** Plans the request. Never returns a plan that skips approval where policy requires it. */
  async generatePlan(userInput: string, requestId: string): Promise<PlanningOutput> {
    const { environment, policy, model } = this.#options;
    const offline = buildPlan({ request: userInput, environment, requestId, policy });
    if (!model) return offline;
    try {
      const draft = await generateStructured(model, PlanDraft, {
        system: systemPrompt(environment, policy),
        user: `Request ${requestId} for ${environment}: ${userInput}\n\nA deterministic planner suggests this plan; improve on it where the request says more:\n${JSON.stringify(
          {
            resources: offline.resources,
            requirements: offline.requirements,
            acceptance_criteria: offline.acceptance_criteria,
          },
        )}`,
        ...(this.#options.signal ? { signal: this.#options.signal } : {}),
      });
      const reasons = approvalReasons(environment, draft.impact);
      if (draft.requires_approval && reasons.length === 0) reasons.push("the planner asked for approval");
      return PlanningOutput.parse({
        ...draft,
        request_id: requestId,
        request: userInput,
        environment,
        requires_approval: reasons.length > 0,
        approval_reasons: reasons,
        generated_by: `${model.provider}:${model.model}`,
      });
    } catch (error) {
      if (this.#options.signal?.aborted) throw error;
      return {
        ...offline,
        generated_by: `offline (fallback: ${(error as Error).message.slice(0, 200)})`,
      };
    }
  }
}

function systemPrompt(environment: Environment, policy: PipelinePolicy): string {
  return [
    "You are the Planning Agent of an infrastructure pipeline that writes Terraform for AWS.",
    `Target environment: ${environment}. Physical names follow ${policy.project}-${environment}-<purpose>;`,
    `every taggable resource carries the tags ${policy.requiredTags.join(", ")}.`,
    "Turn the request into resources (kinds s3_bucket, sqs_queue, dynamodb_table, sns_topic), numbered requirements",
    "(REQ-1…, source 'request' or 'policy') and acceptance criteria (AC-1…) whose checks can be verified against",
    "the Terraform files. Rate the impact: deletions, public data and migrations are high.",
  ].join(" ");
}
