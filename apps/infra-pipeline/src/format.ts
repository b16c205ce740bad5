/**
 * Human-readable summaries of the agents' outputs (the seed's `format_planning_output` and friends),
 * used for the pipeline's messages and the CLI.
 */
import type { DeploymentOutput, IaCOutput, PlanningOutput, ReviewOutput } from "./contracts.js";

/**
 * The plan as text: summary, requirements, acceptance criteria, cost, approval.
 *
 * @example
 * formatPlanningOutput(plan).split("\n")[0]; // "Plan req-1 (prd): Create S3 bucket trellis-prd-logs (versioning) in prd."
 */
export function formatPlanningOutput(plan: PlanningOutput): string {
  const lines = [`Plan ${plan.request_id} (${plan.environment}): ${plan.summary}`, "Requirements:"];
  for (const r of plan.requirements)
    lines.push(`  ${r.id} ${r.description}${r.source === "policy" ? " [policy]" : ""}`);
  if (plan.acceptance_criteria.length > 0) {
    lines.push("Acceptance criteria:");
    for (const c of plan.acceptance_criteria) lines.push(`  ${c.id} ${c.description}`);
  }
  lines.push(`Impact: ${plan.impact} (${plan.impact_reasons.join("; ")})`);
  lines.push(`Cost estimate: ${plan.cost_estimate}`);
  lines.push(
    plan.requires_approval ? `Approval required: ${plan.approval_reasons.join("; ")}` : "Approval required: no",
  );
  if (plan.generated_by !== "offline") lines.push(`Planned by: ${plan.generated_by}`);
  return lines.join("\n");
}

/**
 * The IaC revision as text: files written and what changed.
 *
 * @example
 * formatIaCOutput(iac); // "Revision 2 in …/req-1: locals.tf, main.tf, …\n  ENCRYPTION_CMK_REQUIRED on …"
 */
export function formatIaCOutput(iac: IaCOutput): string {
  const lines = [`Revision ${iac.revision} in ${iac.directory}: ${iac.files.map((f) => f.path).join(", ")}`];
  for (const c of iac.changes) lines.push(`  - ${c}`);
  for (const u of iac.unresolved) lines.push(`  ! left ${u.rule}${u.resource ? ` on ${u.resource}` : ""}: ${u.reason}`);
  if (iac.generated_by !== "offline") lines.push(`Written by: ${iac.generated_by}`);
  return lines.join("\n");
}

/**
 * The review as text: verdict, then one line per finding.
 *
 * @example
 * formatReviewOutput(review); // "NEEDS_REVISION: 0 critical, 1 error(s)…\n  [error] ENCRYPTION_CMK_REQUIRED main.tf:20 …"
 */
export function formatReviewOutput(review: ReviewOutput): string {
  const lines = [review.summary];
  for (const f of review.findings) {
    const where = f.file ? ` ${f.file}${f.line ? `:${f.line}` : ""}` : "";
    lines.push(`  [${f.severity}] ${f.rule}${where} ${f.message}`);
  }
  return lines.join("\n");
}

/**
 * The deployment as text: what happened, the changes, each criterion's verdict and the commands run.
 *
 * @example
 * formatDeploymentOutput(deployment); // "Plan: 5 to add, 0 to change, 0 to destroy …\n  ✓ AC-1 …"
 */
export function formatDeploymentOutput(deployment: DeploymentOutput): string {
  const lines = [deployment.summary];
  for (const c of deployment.planned_changes)
    lines.push(`  ${c.action === "create" ? "+" : c.action === "delete" ? "-" : "~"} ${c.address}`);
  for (const c of deployment.criteria) lines.push(`  ${c.passed ? "✓" : "✗"} ${c.id} ${c.description} — ${c.evidence}`);
  for (const s of deployment.steps) lines.push(`  $ ${s.command} → exit ${s.exit_code}`);
  return lines.join("\n");
}
