/**
 * The IaC Agent: writes the plan as Terraform files under the request's artifact directory. On a
 * retry it reads the review's findings and fixes them — offline by regenerating with the fixes it
 * knows (and saying which findings it must leave because the plan requires them); with a model by
 * sending the previous files and the findings to the model.
 */
import type { ChatModel } from "@trellis/models";
import { z } from "zod";
import { type ArtifactStore, isTerraformFileName } from "../artifacts.js";
import type { Environment, Finding, IaCOutput, PlanningOutput, ReviewOutput } from "../contracts.js";
import { FIXABLE_RULES, generateTerraform } from "../iac/terraform-generator.js";
import { generateStructured } from "../llm/structured-output.js";
import type { PipelinePolicy } from "../policy.js";
import { loadModule } from "../terraform/terraform-module.js";

const FilesDraft = z.object({
  files: z
    .array(
      z.object({
        path: z.string().refine(isTerraformFileName, "a plain *.tf file name, no folders"),
        content: z.string(),
      }),
    )
    .min(1),
  notes: z.array(z.string()).default([]),
});

/** Findings about public access, which the plan may require on purpose. */
const PUBLIC_RULES = new Set(["S3_PUBLIC_ACCESS_ENABLED", "S3_PUBLIC_POLICY", "S3_PUBLIC_ACL"]);

/**
 * Options of {@link IaCAgent}.
 *
 * @example
 * new IaCAgent({ environment: "dev", policy, store: new ArtifactStore(dir) });
 */
export interface IaCAgentOptions {
  environment: Environment;
  policy: PipelinePolicy;
  store: ArtifactStore;
  model?: ChatModel | undefined;
  signal?: AbortSignal;
}

/**
 * What {@link IaCAgent.implementChanges} needs.
 *
 * @example
 * await agent.implementChanges({ planningOutput, reviewFeedback: state.review_output, retryCount: 1, previous: state.iac_output });
 */
export interface ImplementRequest {
  planningOutput: PlanningOutput;
  /** The last review, on a retry. */
  reviewFeedback: ReviewOutput | null;
  retryCount: number;
  /** The previous revision, on a retry. */
  previous: IaCOutput | null;
}

/**
 * The IaC Agent.
 *
 * @example
 * const iac = await agent.implementChanges({ planningOutput, reviewFeedback: null, retryCount: 0, previous: null });
 * iac.files.map((f) => f.path); // ["locals.tf", "main.tf", …]
 */
export class IaCAgent {
  readonly #options: IaCAgentOptions;

  constructor(options: IaCAgentOptions) {
    this.#options = options;
  }

  /** Writes (or rewrites) the Terraform files for the plan and returns the revision's record. */
  async implementChanges(request: ImplementRequest): Promise<IaCOutput> {
    const { planningOutput: plan, previous } = request;
    const revision = (previous?.revision ?? 0) + 1;
    const feedback = request.reviewFeedback?.status === "needs_revision" ? request.reviewFeedback : null;
    const blocking = (feedback?.findings ?? []).filter((f) => f.severity !== "warning");
    const offline = this.#offlineRevision(plan, previous, blocking);
    let files = offline.files;
    let changes = offline.changes;
    let unresolved = offline.unresolved;
    let generatedBy = "offline";
    const model = this.#options.model;
    if (model) {
      try {
        const draft = await this.#modelRevision(model, plan, blocking, request.retryCount);
        files = draft.files;
        changes = draft.notes.length > 0 ? draft.notes : [revision === 1 ? "initial draft" : "revised from the review"];
        unresolved = [];
        generatedBy = `${model.provider}:${model.model}`;
      } catch (error) {
        if (this.#options.signal?.aborted) throw error;
        generatedBy = `offline (fallback: ${(error as Error).message.slice(0, 200)})`;
      }
    }
    const written = await this.#options.store.writeTerraform(plan.request_id, files, revision);
    return {
      request_id: plan.request_id,
      directory: this.#options.store.directoryFor(plan.request_id),
      revision,
      files: written,
      resources: loadModule(files).resources.map((r) => r.address),
      changes,
      unresolved,
      applied_fixes: offline.appliedFixes,
      generated_by: generatedBy,
    };
  }

  #offlineRevision(plan: PlanningOutput, previous: IaCOutput | null, findings: Finding[]) {
    const fixes = new Set(previous?.applied_fixes ?? []);
    const changes: string[] = [];
    const unresolved: IaCOutput["unresolved"] = [];
    if (!previous)
      changes.push(`initial draft implementing ${plan.requirements.map((r) => r.id).join(", ") || "the plan"}`);
    for (const f of findings) {
      const where = f.resource ?? "the configuration";
      if (f.resource && FIXABLE_RULES[f.rule]) {
        const key = `${f.rule}@${f.resource}`;
        if (!fixes.has(key)) changes.push(`${f.rule} on ${where}: ${FIXABLE_RULES[f.rule]}`);
        fixes.add(key);
      } else if (PUBLIC_RULES.has(f.rule) && publicByRequest(plan, f.resource)) {
        const req = plan.requirements.find((r) => /public/i.test(r.description) && r.source === "request");
        unresolved.push({
          ...(f.resource ? { resource: f.resource } : {}),
          rule: f.rule,
          reason: `${req?.id ?? "The plan"} asks for public read access; making ${where} private would break it. Change the request (or serve it through CloudFront) to resolve this.`,
        });
      } else if (f.rule === "NO_RESOURCES" || f.rule === "PLANNED_RESOURCE_MISSING") {
        unresolved.push({
          rule: f.rule,
          ...(f.resource ? { resource: f.resource } : {}),
          reason: "the plan names nothing more to implement",
        });
      } else {
        changes.push(`${f.rule} on ${where}: regenerated from the plan`);
      }
    }
    if (previous && changes.length === 0) changes.push("no change: every remaining finding conflicts with the plan");
    const files = generateTerraform({ plan, policy: this.#options.policy, fixes });
    return { files, changes, unresolved, appliedFixes: [...fixes].sort() };
  }

  async #modelRevision(model: ChatModel, plan: PlanningOutput, findings: Finding[], retryCount: number) {
    const current = findings.length > 0 ? await this.#options.store.readTerraform(plan.request_id) : [];
    const { environment, policy } = this.#options;
    const user = [
      `Plan (request ${plan.request_id}, environment ${environment}):`,
      JSON.stringify({
        summary: plan.summary,
        resources: plan.resources,
        requirements: plan.requirements,
        acceptance_criteria: plan.acceptance_criteria,
      }),
      ...(findings.length > 0
        ? [
            `\nRetry ${retryCount}: the review asks for a revision. Findings:`,
            ...findings.map(
              (f) =>
                `- [${f.severity}] ${f.rule} ${f.resource ?? ""} ${f.file ?? ""}:${f.line ?? ""} ${f.message} Fix: ${f.fix ?? "-"}`,
            ),
            "\nCurrent files:",
            ...current.map((f) => `--- ${f.path}\n${f.content}`),
          ]
        : []),
    ].join("\n");
    return generateStructured(model, FilesDraft, {
      system: [
        "You are the IaC Agent. Write Terraform (AWS provider ~> 5.0) implementing the plan, as complete files.",
        `Name resources ${policy.project}-${environment}-<purpose>; tag every taggable resource with ${policy.requiredTags.join(", ")}`,
        `(Environment = "${environment}", RequestId = "${plan.request_id}"); encrypt everything at rest; block public S3 access unless a`,
        "requirement asks for it. On a retry, fix every finding and return all files again. Put a short note per change in notes.",
      ].join(" "),
      user,
      ...(this.#options.signal ? { signal: this.#options.signal } : {}),
    });
  }
}

function publicByRequest(plan: PlanningOutput, address: string | undefined): boolean {
  return plan.resources.some(
    (r) => r.features.public === true && (address === undefined || address.endsWith(`.${r.label}`)),
  );
}
