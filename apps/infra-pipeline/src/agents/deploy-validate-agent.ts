/**
 * The Deploy-Validate Agent, as a dry run: it reads the reviewed files, works out the changes applying
 * them would make, and checks every acceptance criterion against them. It makes no cloud calls; it
 * fails when a criterion is not met or when the files changed after the review.
 */
import type { ArtifactStore } from "../artifacts.js";
import type {
  AcceptanceCriterion,
  DeploymentOutput,
  Environment,
  IaCOutput,
  PlanningOutput,
  ReviewOutput,
} from "../contracts.js";
import { evaluateCriterion, plannedChanges } from "../deploy/criteria.js";
import { loadModule } from "../terraform/terraform-module.js";

/**
 * Options of {@link DeployValidateAgent}.
 *
 * @example
 * new DeployValidateAgent({ environment: "prd", store });
 */
export interface DeployValidateAgentOptions {
  environment: Environment;
  store: ArtifactStore;
}

/**
 * What {@link DeployValidateAgent.deployAndValidate} checks.
 *
 * @example
 * await agent.deployAndValidate({ iacOutput, acceptanceCriteria: plan.acceptance_criteria, plan, review });
 */
export interface DeployRequest {
  iacOutput: IaCOutput | null;
  acceptanceCriteria: readonly AcceptanceCriterion[];
  plan: PlanningOutput | null;
  /** The review that passed these files; deployment refuses files that changed since. */
  review: ReviewOutput | null;
}

/**
 * The Deploy-Validate Agent.
 *
 * @example
 * const d = await new DeployValidateAgent({ environment: "dev", store }).deployAndValidate(request);
 * d.criteria.every((c) => c.passed);
 */
export class DeployValidateAgent {
  readonly #options: DeployValidateAgentOptions;

  constructor(options: DeployValidateAgentOptions) {
    this.#options = options;
  }

  /** Simulates the deployment and validates the acceptance criteria. */
  async deployAndValidate(request: DeployRequest): Promise<DeploymentOutput> {
    const { environment, store } = this.#options;
    const files = request.iacOutput ? await store.readTerraform(request.iacOutput.request_id) : [];
    const module = loadModule(files);
    const criteria = request.acceptanceCriteria.map((c) => evaluateCriterion(module, c));
    const reviewed = new Map((request.review?.files_reviewed ?? []).map((f) => [f.path, f.sha256]));
    const drift = files
      .filter((f) => reviewed.get(f.path) !== f.sha256)
      .map((f) => f.path)
      .concat([...reviewed.keys()].filter((p) => !files.some((f) => f.path === p)));
    if (drift.length > 0) {
      criteria.push({
        id: "REVIEWED",
        description: "The files deployed are the files the review passed.",
        passed: false,
        evidence: `changed since the review: ${drift.join(", ")}`,
      });
    }
    const failed = criteria.filter((c) => !c.passed);
    const changes = plannedChanges(module, request.plan);
    const count = (a: string) => changes.filter((c) => c.action === a).length;
    const planLine = `Plan: ${count("create")} to add, ${count("update")} to change, ${count("delete")} to destroy`;
    return {
      status: failed.length === 0 ? "succeeded" : "failed",
      mode: "dry-run",
      environment,
      planned_changes: changes,
      criteria,
      validated_files: files.map((f) => ({ path: f.path, sha256: f.sha256 })),
      summary:
        failed.length === 0
          ? `${planLine} (dry run, no cloud calls); ${criteria.length}/${criteria.length} acceptance criteria met.`
          : `${planLine} (dry run); ${failed.length} of ${criteria.length} acceptance criteria NOT met: ${failed.map((c) => c.id).join(", ")}.`,
    };
  }
}
