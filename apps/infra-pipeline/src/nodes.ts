/**
 * The pipeline's node functions (the seed's "Node Functions", plus the gate and terminal nodes it
 * names but does not show). Nodes return updates; they never mutate the state they receive.
 */
import type { NodeContext } from "@trellis/core";
import { TrellisError } from "@trellis/core";
import type { ChatModel } from "@trellis/models";
import { handleConversation, handleQuery } from "./agents/assistant-replies.js";
import { DeployValidateAgent } from "./agents/deploy-validate-agent.js";
import { IaCAgent } from "./agents/iac-agent.js";
import { PlanningAgent } from "./agents/planning-agent.js";
import { ReviewAgent } from "./agents/review-agent.js";
import { type ApprovalRequest, askUntilDecided, gateRequest } from "./approval-gates.js";
import type { ArtifactStore } from "./artifacts.js";
import { Environment } from "./contracts.js";
import type { ExecutorChoice } from "./deploy/executor.js";
import { formatDeploymentOutput, formatIaCOutput, formatPlanningOutput, formatReviewOutput } from "./format.js";
import { missingNameQuestion, namingQuestion } from "./planning/plan-builder.js";
import { parseRequest } from "./planning/request-parser.js";
import type { PipelinePolicy } from "./policy.js";
import { classifyIntent } from "./router.js";
import { lastUserText, type PipelineState, type PipelineUpdate } from "./state.js";

/**
 * What the nodes need from outside the state.
 *
 * @example
 * const nodes = createNodes({ store, policy, model: undefined, conversationModel, newRequestId });
 */
export interface NodeDeps {
  store: ArtifactStore;
  policy: PipelinePolicy;
  /** The model of the LLM-backed agents; undefined runs them offline. */
  model: ChatModel | undefined;
  /** The model for conversation: `model`, or the offline rule model. */
  conversationModel: ChatModel;
  newRequestId: () => string;
  /** The deployment executor, or why there is none (a deployment is then refused). */
  executor: ExecutorChoice;
}

/** The environments a request may name, and their aliases. */
const ENV_NAMES = "dev, tst or prd (or development, test, prod, production)";

/**
 * Checks the typed inputs a caller may set — `environment`, `dry_run`, `max_retries` — before anything
 * is planned or deployed, and names the field that is wrong (`INVALID_ARGUMENT`, HTTP 400 for an app
 * route that throws the run's error). `dry_run: "no"` is not a boolean and must not count as a dry run
 * (or as a real one).
 *
 * @example
 * checkTypedInputs({ ...state, dry_run: "no" }); // throws: Input "dry_run" must be true or false, got "no".
 */
export function checkTypedInputs(state: Pick<PipelineState, "environment" | "dry_run" | "max_retries">): Environment {
  const bad = (field: string, expected: string, got: unknown): never => {
    throw new TrellisError("INVALID_ARGUMENT", `Input "${field}" must be ${expected}, got ${JSON.stringify(got)}.`, {
      details: { field, got },
    });
  };
  if (typeof state.dry_run !== "boolean") bad("dry_run", "true or false", state.dry_run);
  const max = state.max_retries as unknown;
  if (typeof max !== "number" || !Number.isInteger(max) || max < 1 || max > 10) {
    bad("max_retries", "a whole number from 1 to 10", max);
  }
  const raw = typeof state.environment === "string" ? state.environment.trim().toLowerCase() : "";
  const environment = Environment.safeParse(ENV_ALIASES[raw] ?? raw);
  if (!environment.success) return bad("environment", ENV_NAMES, state.environment);
  return environment.data;
}

const ENV_ALIASES: Record<string, Environment> = { prod: "prd", production: "prd", test: "tst", development: "dev" };

const say = (name: string, content: string) => ({ role: "assistant" as const, name, content });

/** Things people ask for that the pipeline does not plan, by the words that name them. */
const OUT_OF_SCOPE: Array<[RegExp, string]> = [
  [/\b(?:eks|kubernetes|k8s|cluster|node\s*groups?|nodes?|pods?)\b/i, "Kubernetes (EKS) clusters and their nodes"],
  [/\b(?:ec2|instances?|vms?|servers?|autoscaling|asg)\b/i, "EC2 instances and auto-scaling groups"],
  [/\b(?:rds|postgres\w*|mysql|aurora|databases?)\b/i, "RDS databases"],
  [/\b(?:lambdas?|functions?)\b/i, "Lambda functions"],
  [
    /\b(?:vpcs?|vpns?|tunnels?|subnets?|security\s+groups?|load\s+balancers?|alb|elb|dns|route\s*53)\b/i,
    "networking (VPCs, VPNs, subnets, load balancers, DNS)",
  ],
  [/\b(?:iam|roles?|policies|users?|permissions?)\b/i, "IAM roles, users and policies"],
];

/**
 * The honest answer to a change the pipeline cannot plan: what it is, what the pipeline does plan, and
 * that nothing ran.
 *
 * @example
 * outOfScopeAnswer("scale the EKS cluster to 5 nodes"); // "I can't do that here: Kubernetes (EKS) clusters …"
 */
export function outOfScopeAnswer(request: string): string {
  const what = OUT_OF_SCOPE.find(([re]) => re.test(request))?.[1];
  return [
    what
      ? `I can't do that here: ${what} are outside what this pipeline manages.`
      : "I can't tell which resource this change is about, and I will not guess.",
    "I plan, review and deploy S3 buckets, SQS queues, DynamoDB tables and SNS topics: create them, change their settings (versioning, public access, encryption, retention, FIFO), or delete them.",
    'Nothing was planned or changed. Rephrase the request for one of those (for example "create an SQS queue for orders"), or ask "list the resources in dev".',
  ].join(" ");
}

type Node = (state: PipelineState, ctx: NodeContext) => Promise<PipelineUpdate> | PipelineUpdate;

/**
 * Builds the ten nodes.
 *
 * @example
 * const { orchestrator, planning } = createNodes(deps);
 */
export function createNodes(
  deps: NodeDeps,
): Record<
  | "orchestrator"
  | "planning"
  | "plan_approval"
  | "iac"
  | "review"
  | "deploy_approval"
  | "deploy_validate"
  | "rejected"
  | "end_success"
  | "end_failure",
  Node
> {
  const { store, policy, model } = deps;
  const envOf = (state: PipelineState) => Environment.parse(state.environment);

  return {
    async orchestrator(state, ctx) {
      const userInput = lastUserText(state.messages);
      const intent = classifyIntent(userInput);
      // a wrong typed input stops the request before anything is planned, naming the field
      const environment = { data: checkTypedInputs(state) };
      ctx.emit({ node: "orchestrator", text: `intent: ${intent}` });
      if (intent === "change") {
        const parsed = parseRequest(userInput);
        if (parsed.resources.length === 0) {
          // outside what the pipeline plans: say so, and run no stage
          ctx.emit({ node: "orchestrator", text: "no supported resource in the request: answering, not planning" });
          return {
            intent,
            environment: environment.data,
            current_agent: "clarify",
            messages: [say("orchestrator", outOfScopeAnswer(userInput))],
          };
        }
        // the environment the request names wins over the session's default, and the plan says so
        const named = parsed.mentionedEnvironment;
        if (named && named !== environment.data) {
          ctx.emit({
            node: "orchestrator",
            text: `the request names ${named}: planning in ${named}, not the session's ${environment.data}`,
          });
          environment.data = named;
        }
        const question =
          missingNameQuestion(userInput, environment.data, policy) ??
          namingQuestion(userInput, environment.data, policy);
        if (question) {
          // The request names no resource to act on: ask, never plan against an invented name.
          ctx.emit({ node: "orchestrator", text: "the request names no resource: asking for its name" });
          return {
            intent,
            environment: environment.data,
            current_agent: "clarify",
            messages: [say("orchestrator", question)],
          };
        }
        // A thread that already carried a request starts a new one: fresh id, outputs and approvals.
        const fresh = state.planning_output !== null || state.request_id === "";
        return {
          intent,
          environment: environment.data,
          current_agent: "planning",
          ...(fresh ? { request_id: deps.newRequestId() } : {}),
          planning_output: null,
          iac_output: null,
          review_output: null,
          deployment_output: null,
          retry_count: 0,
          review_status: null,
          pending_approval: null,
          plan_approved: null,
          deploy_approved: null,
          cost_estimate: null,
          error: null,
        };
      }
      const response =
        intent === "query"
          ? await ctx.step("query", () =>
              handleQuery(userInput, environment.data, { store, model, signal: ctx.signal }),
            )
          : await ctx.step("conversation", () =>
              handleConversation(userInput, { model: deps.conversationModel, signal: ctx.signal }),
            );
      return {
        intent,
        environment: environment.data,
        current_agent: "orchestrator",
        messages: [say("orchestrator", response)],
      };
    },

    async planning(state, ctx) {
      const agent = new PlanningAgent({ environment: envOf(state), policy, model, signal: ctx.signal });
      if (model) ctx.emit({ node: "planning", text: `asking ${model.provider}:${model.model} for a plan` });
      const plan = await ctx.step("plan", () => agent.generatePlan(lastUserText(state.messages), state.request_id));
      // the request's files are this thread's: a request id another conversation planned is refused
      const threadId = ctx.config.threadId;
      if (threadId) await store.claim(plan.request_id, threadId);
      await store.writeRecord(plan.request_id, "plan", plan);
      return {
        planning_output: plan,
        current_agent: "plan_approval",
        pending_approval: plan.requires_approval ? "plan" : null,
        cost_estimate: plan.cost_estimate,
        messages: [say("planning", formatPlanningOutput(plan))],
      };
    },

    async plan_approval(state) {
      const plan = state.planning_output;
      if (state.pending_approval !== "plan" || !plan) return { current_agent: "iac" };
      if (typeof state.plan_approved === "boolean") return { pending_approval: null };
      const request: ApprovalRequest = gateRequest(
        {
          gate: "plan",
          question: "Approve the plan?",
          request_id: plan.request_id,
          environment: plan.environment,
          summary: plan.summary,
          details: formatPlanningOutput(plan),
          reasons: plan.approval_reasons,
        },
        {
          request_id: plan.request_id,
          environment: plan.environment,
          summary: plan.summary,
          resources: plan.resources,
          requirements: plan.requirements,
          acceptance_criteria: plan.acceptance_criteria,
          cost_estimate: plan.cost_estimate,
        },
      );
      const decision = askUntilDecided(request, plan, policy);
      const approved = decision.approved;
      if (decision.plan) {
        // the plan the person edited is the plan approved, recorded and implemented
        await store.writeRecord(decision.plan.request_id, "plan", decision.plan);
      }
      const said = decision.plan
        ? `Plan edited and approved: ${decision.plan.summary}`
        : approved
          ? "Plan approved."
          : `Plan rejected.${decision.message ? ` ${decision.message}` : ""}`;
      return {
        plan_approved: approved,
        pending_approval: null,
        current_agent: approved ? "iac" : "rejected",
        ...(decision.plan ? { planning_output: decision.plan, cost_estimate: decision.plan.cost_estimate } : {}),
        messages: [say("plan_approval", said)],
      };
    },

    async iac(state, ctx) {
      const plan = state.planning_output;
      if (!plan) throw new Error("The IaC Agent needs a plan, and planning_output is empty.");
      const agent = new IaCAgent({ environment: envOf(state), policy, store, model, signal: ctx.signal });
      const output = await ctx.step("implement", () =>
        agent.implementChanges({
          planningOutput: plan,
          reviewFeedback: state.review_output,
          retryCount: state.retry_count,
          previous: state.iac_output,
        }),
      );
      for (const f of output.files) ctx.emit({ node: "iac", text: `wrote ${f.path} (${f.bytes} bytes)` });
      return { iac_output: output, current_agent: "review", messages: [say("iac", formatIaCOutput(output))] };
    },

    async review(state, ctx) {
      const agent = new ReviewAgent({ environment: envOf(state), policy, store });
      const review = await agent.validateChanges(state.iac_output, state.planning_output);
      await store.writeRecord(state.request_id, "review", review);
      for (const c of review.checks) {
        ctx.emit({
          node: "review",
          text: `${c.category}: ${c.passed ? "ok" : "FAILED"}${c.findings ? ` (${c.findings} finding(s))` : ""}`,
        });
      }
      const update: PipelineUpdate = {
        review_output: review,
        review_status: review.status,
        messages: [say("review", formatReviewOutput(review))],
      };
      if (review.status === "needs_revision") update.retry_count = state.retry_count + 1;
      // The deploy gate is next when the review passed and this is no dry run (the seed set this from
      // inside its router).
      if (review.status === "passed" && !state.dry_run) update.pending_approval = "deploy";
      return update;
    },

    deploy_approval(state) {
      // `command: { update }` at a gate could have changed them since the orchestrator checked
      checkTypedInputs(state);
      if (state.dry_run) return { pending_approval: null, current_agent: "end_success" };
      if (typeof state.deploy_approved === "boolean") return { pending_approval: null };
      const plan = state.planning_output;
      const request: ApprovalRequest = gateRequest(
        {
          gate: "deploy",
          question: "Approve the deployment?",
          request_id: state.request_id,
          environment: envOf(state),
          summary: plan?.summary ?? "",
          details: [
            state.review_output ? formatReviewOutput(state.review_output) : "",
            state.iac_output ? formatIaCOutput(state.iac_output) : "",
          ]
            .filter(Boolean)
            .join("\n"),
          reasons: ["review passed; deployment always needs approval"],
        },
        {
          request_id: state.request_id,
          environment: envOf(state),
          files: (state.iac_output?.files ?? []).map((f) => f.path),
          review: state.review_output?.summary ?? "",
        },
      );
      const { approved, message } = askUntilDecided(request);
      return {
        deploy_approved: approved,
        pending_approval: null,
        current_agent: approved ? "deploy_validate" : "rejected",
        messages: [
          say(
            "deploy_approval",
            approved ? "Deployment approved." : `Deployment rejected.${message ? ` ${message}` : ""}`,
          ),
        ],
      };
    },

    async deploy_validate(state, ctx) {
      const plan = state.planning_output;
      const agent = new DeployValidateAgent({
        environment: envOf(state),
        store,
        executor: deps.executor,
        signal: ctx.signal,
      });
      if (deps.executor.executor)
        ctx.emit({ node: "deploy_validate", text: `deploying with ${deps.executor.executor.bin}` });
      // a durable step: a node that runs again (retry, crash) never applies twice
      const output = await ctx.step("deploy", () =>
        agent.deployAndValidate({
          iacOutput: state.iac_output,
          acceptanceCriteria: plan?.acceptance_criteria ?? [],
          plan,
          review: state.review_output,
        }),
      );
      await store.writeRecord(state.request_id, "deployment", output);
      return {
        deployment_output: output,
        current_agent: "end",
        ...(output.status === "failed" ? { error: `Deployment failed: ${output.summary}` } : {}),
        ...(output.status === "refused" ? { error: `Deployment refused: ${output.summary}` } : {}),
        messages: [say("deploy_validate", formatDeploymentOutput(output))],
      };
    },

    rejected(state) {
      const what = state.plan_approved === false ? "plan" : "deployment";
      return {
        current_agent: "rejected",
        pending_approval: null,
        messages: [say("rejected", `Request ${state.request_id}: the ${what} was rejected. Nothing was deployed.`)],
      };
    },

    end_success(state) {
      const d = state.deployment_output;
      const dir = state.iac_output?.directory ?? "";
      const content = state.dry_run
        ? `Dry run complete for ${state.request_id}: planned and reviewed (${state.review_output?.summary ?? "no review"}); deployment skipped. Terraform files: ${dir}`
        : d?.status === "applied"
          ? `Request ${state.request_id} applied: ${d.summary} Terraform files: ${dir}`
          : d?.status === "refused" || d?.status === "planned"
            ? `Request ${state.request_id} was NOT deployed. ${d.summary} Terraform files: ${dir}`
            : `Request ${state.request_id} finished, but it was not deployed: ${d?.summary ?? "no deployment ran."}`;
      return { current_agent: "end_success", messages: [say("end_success", content)] };
    },

    end_failure(state) {
      const review = state.review_output;
      const error =
        state.error ??
        (review
          ? review.status === "failed"
            ? `Review failed: ${review.summary}`
            : `Review still needs revision after ${state.retry_count} of ${state.max_retries} attempts: ${review.summary}`
          : "Unknown error");
      let message = `Pipeline failed after ${state.retry_count} retries.\n`;
      message += `Error: ${error}\n`;
      if (review) {
        message += `Review findings: ${review.findings.length} issues\n`;
        for (const f of review.findings)
          message += `  [${f.severity}] ${f.rule}${f.resource ? ` ${f.resource}` : ""}: ${f.message}\n`;
      }
      for (const u of state.iac_output?.unresolved ?? []) message += `IaC could not fix ${u.rule}: ${u.reason}\n`;
      return { current_agent: "end_failure", error, messages: [say("end_failure", message)] };
    },
  };
}
