/**
 * The Review Agent: reads the request's Terraform files from disk and runs the static checks on them.
 * Always deterministic — a model does not get to overrule a policy check, with or without a key.
 */
import type { ArtifactStore } from "../artifacts.js";
import type { Environment, Finding, IaCOutput, PlanningOutput, ReviewOutput } from "../contracts.js";
import type { PipelinePolicy } from "../policy.js";
import { REVIEW_CATEGORIES, runReviewRules } from "../review/review-rules.js";
import { loadModule } from "../terraform/terraform-module.js";

/**
 * Options of {@link ReviewAgent}.
 *
 * @example
 * new ReviewAgent({ environment: "prd", policy, store });
 */
export interface ReviewAgentOptions {
  environment: Environment;
  policy: PipelinePolicy;
  store: ArtifactStore;
}

/**
 * The Review Agent.
 *
 * @example
 * const review = await new ReviewAgent({ environment: "prd", policy, store }).validateChanges(iacOutput, plan);
 * review.status; // "needs_revision"
 */
export class ReviewAgent {
  readonly #options: ReviewAgentOptions;

  constructor(options: ReviewAgentOptions) {
    this.#options = options;
  }

  /**
   * Reviews the files of the IaC revision. Critical findings fail the review, errors ask for a
   * revision, warnings are reported only.
   */
  async validateChanges(iacOutput: IaCOutput | null, plan: PlanningOutput | null): Promise<ReviewOutput> {
    const { environment, policy, store } = this.#options;
    const files = iacOutput ? await store.readTerraform(iacOutput.request_id) : [];
    const module = loadModule(files);
    const findings = runReviewRules({ module, environment, policy, plan, fileCount: files.length });
    const status = findings.some((f) => f.severity === "critical")
      ? "failed"
      : findings.some((f) => f.severity === "error")
        ? "needs_revision"
        : "passed";
    const checks = REVIEW_CATEGORIES.map((category) => {
      const mine = findings.filter((f) => f.category === category);
      return { category, passed: !mine.some((f) => f.severity !== "warning"), findings: mine.length };
    });
    return {
      status,
      findings,
      checks,
      files_reviewed: files.map((f) => ({ path: f.path, sha256: f.sha256 })),
      revision: iacOutput?.revision ?? 0,
      summary: summarize(status, findings, files.length, environment),
    };
  }
}

function summarize(
  status: ReviewOutput["status"],
  findings: Finding[],
  files: number,
  environment: Environment,
): string {
  const count = (s: Finding["severity"]) => findings.filter((f) => f.severity === s).length;
  const tally = `${count("critical")} critical, ${count("error")} error(s), ${count("warning")} warning(s) in ${files} file(s) against the ${environment} rules`;
  if (status === "passed") return `PASSED: ${tally}.`;
  const rules = [...new Set(findings.filter((f) => f.severity !== "warning").map((f) => f.rule))].join(", ");
  return `${status === "failed" ? "FAILED" : "NEEDS_REVISION"}: ${tally} (${rules}).`;
}
