/**
 * The Deploy-Validate Agent: checks that the files are the ones the review passed and that they meet
 * every acceptance criterion, then deploys them with the executor (`terraform`/`tofu` init, plan,
 * apply) and reports what happened. Without an executor it refuses: nothing is deployed, and nothing
 * is reported as deployed.
 */
import { join } from "node:path";
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
import { applyWith, type DeployExecutor, type ExecutorChoice } from "../deploy/executor.js";
import { applyLocal } from "../deploy/local-target.js";
import { backendBlock } from "../deploy/state-backend.js";
import { loadModule } from "../terraform/terraform-module.js";

/**
 * Options of {@link DeployValidateAgent}.
 *
 * @example
 * new DeployValidateAgent({ environment: "prd", store, executor: findExecutor(process.env) });
 */
export interface DeployValidateAgentOptions {
  environment: Environment;
  store: ArtifactStore;
  /** The executor, or why there is none (then every deployment is refused). */
  executor: ExecutorChoice;
  signal?: AbortSignal;
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
 * const d = await new DeployValidateAgent({ environment: "dev", store, executor }).deployAndValidate(request);
 * d.status; // "applied" | "refused" | "failed"
 */
export class DeployValidateAgent {
  readonly #options: DeployValidateAgentOptions;

  constructor(options: DeployValidateAgentOptions) {
    this.#options = options;
  }

  #deployLocal(
    executor: DeployExecutor,
    module: ReturnType<typeof loadModule>,
    request: DeployRequest,
    context: { base: Omit<DeploymentOutput, "status" | "mode" | "steps" | "summary">; planLine: string },
  ): Promise<DeploymentOutput> {
    // each environment's state is shared by every request: default <artifacts>/.tfstate/<env>.tfstate
    const stateDir = join(this.#options.store.root, ".tfstate");
    return deployLocalOutcome(executor, module, request, { ...context, stateDir }, this.#options.signal);
  }

  /** Validates the reviewed files against the acceptance criteria, then deploys them (or refuses). */
  async deployAndValidate(request: DeployRequest): Promise<DeploymentOutput> {
    const { environment, store, executor } = this.#options;
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
    const planLine = `${count("create")} to add, ${count("update")} to change, ${count("delete")} to destroy`;
    const met = `${criteria.length - failed.length}/${criteria.length} acceptance criteria met by the reviewed files`;
    const base = {
      environment,
      planned_changes: changes,
      criteria,
      validated_files: files.map((f) => ({ path: f.path, sha256: f.sha256 })),
    };
    if (failed.length > 0) {
      return {
        ...base,
        status: "failed",
        mode: executor.executor?.kind ?? "none",
        steps: [],
        summary: `Not deployed: ${failed.length} of ${criteria.length} acceptance criteria NOT met (${failed.map((c) => c.id).join(", ")}); nothing was run.`,
      };
    }
    if (!executor.executor) {
      return {
        ...base,
        status: "refused",
        mode: "none",
        steps: [],
        summary: `Not deployed (refused): ${executor.reason}. Nothing was changed in ${environment}. Install terraform or tofu (or set INFRA_AGENT_EXECUTOR), or run with dry_run to plan and review only. The reviewed files would make ${planLine}; ${met}.`,
      };
    }
    if (executor.executor.target === "local") {
      return this.#deployLocal(executor.executor, module, request, { base, planLine });
    }
    const dir = request.iacOutput?.directory ?? "";
    const { applied, steps } = await applyWith(executor.executor, dir, this.#options.signal);
    const last = steps.at(-1);
    if (planOnly(executor.executor, steps)) {
      return {
        ...base,
        status: "planned",
        mode: executor.executor.kind,
        steps,
        summary: plannedSummary(executor.executor.kind, environment, planLine),
      };
    }
    return {
      ...base,
      status: applied ? "applied" : "failed",
      mode: executor.executor.kind,
      steps,
      summary: applied
        ? `Applied with ${executor.executor.kind} (init, plan, apply: exit 0): ${planLine}; ${criteria.length}/${criteria.length} acceptance criteria met by the applied files.`
        : `Not applied: \`${last?.command ?? executor.executor.kind}\` exited ${last?.exit_code ?? "?"}${steps.length > 1 ? ` after ${steps.length - 1} successful step(s)` : "; nothing was changed"}. ${lastLine(last?.output ?? "")}`,
    };
  }
}

/** The local target's outcome: applied and every criterion met by the applied state, or failed saying why. */
async function deployLocalOutcome(
  executor: DeployExecutor,
  module: ReturnType<typeof loadModule>,
  request: DeployRequest,
  context: {
    base: Omit<DeploymentOutput, "status" | "mode" | "steps" | "summary">;
    planLine: string;
    stateDir: string;
  },
  signal: AbortSignal | undefined,
): Promise<DeploymentOutput> {
  const { base, planLine } = context;
  const backend = backendBlock(executor.state ?? { kind: "local" }, base.environment, context.stateDir);
  const result = await applyLocal(executor, module, request.acceptanceCriteria, { backend, signal });
  const where = `the local target (terraform_data, ${executor.kind})`;
  const outcome = { ...base, mode: executor.kind, steps: result.steps };
  if (planOnly(executor, result.steps)) {
    return {
      ...outcome,
      status: "planned",
      summary: plannedSummary(`${executor.kind}, local target`, base.environment, planLine),
    };
  }
  if (!result.applied) {
    const last = result.steps.at(-1);
    return {
      ...outcome,
      status: "failed",
      summary: `Not applied to ${where}: \`${last?.command ?? executor.kind}\` exited ${last?.exit_code ?? "?"}${result.steps.length > 1 ? ` after ${result.steps.length - 1} successful step(s)` : "; nothing was changed"}. ${lastLine(last?.output ?? "")}`,
    };
  }
  const missed = result.criteria.filter((c) => !c.passed);
  if (result.criteria.length !== request.acceptanceCriteria.length) {
    return {
      ...outcome,
      status: "failed",
      summary: `Applied to ${where} (${planLine}), but its state could not be read back, so the acceptance criteria were not checked against it.`,
    };
  }
  return {
    ...outcome,
    criteria: result.criteria,
    status: missed.length === 0 ? "applied" : "failed",
    summary:
      missed.length === 0
        ? `Applied to ${where} (init, plan, apply: exit 0): ${planLine}; ${result.criteria.length}/${result.criteria.length} acceptance criteria met by the applied state (${result.resources.length} resource(s)).`
        : `Applied to ${where} (${planLine}), but ${missed.length} of ${result.criteria.length} acceptance criteria are NOT met by the applied state: ${missed.map((c) => `${c.id} (${c.evidence})`).join("; ")}.`,
  };
}

/** True when the executor only plans and every command it ran (init, plan) exited 0. */
function planOnly(executor: DeployExecutor, steps: readonly { exit_code: number }[]): boolean {
  return executor.apply === false && steps.length === 2 && steps.every((s) => s.exit_code === 0);
}

function plannedSummary(how: string, environment: Environment, planLine: string): string {
  return `Planned only, NOT applied (INFRA_AGENT_TF_APPLY=false): init and plan exited 0 with ${how}; the plan would make ${planLine}. Nothing was changed in ${environment}; the plan's output is in the steps.`;
}

/** The last non-empty line of a command's output (its error, usually). */
function lastLine(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.replace(/^[│╷╵\s]+/, "").trim())
    .filter((l) => l !== "" && !/^[─]+$/.test(l));
  const error = lines.find((l) => /^Error:/.test(l));
  return (error ?? lines.at(-1) ?? "").slice(0, 300);
}
