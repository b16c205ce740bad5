/**
 * `PipelineState` — the seed's TypedDict as a Trellis state schema, key for key, plus the three keys
 * the seed's routers read but its TypedDict forgot (`intent`, `plan_approved`, `deploy_approved`).
 */
import { channel, type StateOf, type UpdateOf } from "@trellis/core";
import { messageText } from "@trellis/models";
import { z } from "zod";
import type {
  DeploymentOutput,
  Environment,
  IaCOutput,
  Intent,
  PlanningOutput,
  ReviewOutput,
  ReviewStatus,
} from "./contracts.js";

/**
 * One message of the pipeline's conversation (OpenAI-shaped; `name` is the agent that wrote it).
 *
 * @example
 * const m: PipelineMessage = { role: "assistant", name: "planning", content: "Plan: …" };
 */
export interface PipelineMessage {
  id?: string;
  role: "user" | "assistant" | "system" | "tool";
  content: string;
  name?: string;
  [key: string]: unknown;
}

/**
 * Which approval the pipeline waits for.
 *
 * @example
 * const gate: ApprovalGate = "deploy";
 */
export type ApprovalGate = "plan" | "deploy";

/** The environment names a request may use: the three, and their aliases (any case, spaces around). */
const ENVIRONMENT_NAMES = ["dev", "tst", "prd", "development", "test", "prod", "production"];

/**
 * The inputs a caller types, as zod schemas declared on their channels: a wrong value in a run's input,
 * a `command.update` or `updateState` is refused with `INVALID_STATE` naming the key before anything is
 * written (a 400 over the API), and `getSchemas()` shows them as JSON Schema (the environment as its
 * three names; the aliases are accepted too).
 *
 * @example
 * typedInputSchema.shape.dry_run.safeParse("no").success; // false
 */
export const typedInputSchema = z.object({
  environment: z
    .string({ error: "must be dev, tst or prd (or development, test, prod, production)" })
    .refine((name) => ENVIRONMENT_NAMES.includes(name.trim().toLowerCase()), {
      error: "must be dev, tst or prd (or development, test, prod, production)",
    })
    .meta({ enum: ["dev", "tst", "prd"] }),
  dry_run: z.boolean({ error: "must be true or false" }),
  max_retries: z
    .number({ error: "must be a whole number from 1 to 10" })
    .int({ error: "must be a whole number from 1 to 10" })
    .min(1, { error: "must be a whole number from 1 to 10" })
    .max(10, { error: "must be a whole number from 1 to 10" }),
});

const fields = typedInputSchema.shape;

/**
 * The state schema. Each key is a last-write-wins value except `messages` (the seed's `add_messages`).
 *
 * @example
 * const graph = new StateGraph(pipelineSchema);
 */
export const pipelineSchema = {
  // Core state
  request_id: channel.value(""),
  messages: channel.messages<PipelineMessage>(),
  environment: channel.value<Environment>("dev", { schema: fields.environment as z.ZodType<Environment> }),
  dry_run: channel.value(false, { schema: fields.dry_run }),
  // Agent outputs
  planning_output: channel.value<PlanningOutput | null>(null),
  iac_output: channel.value<IaCOutput | null>(null),
  review_output: channel.value<ReviewOutput | null>(null),
  deployment_output: channel.value<DeploymentOutput | null>(null),
  // Control flow
  current_agent: channel.value("orchestrator"),
  retry_count: channel.value(0),
  max_retries: channel.value(3, { schema: fields.max_retries }),
  review_status: channel.value<ReviewStatus | null>(null),
  // Approval gates
  pending_approval: channel.value<ApprovalGate | null>(null),
  cost_estimate: channel.value<string | null>(null),
  // Error tracking
  error: channel.value<string | null>(null),
  // Read by the seed's routers (state.get("intent"), ("plan_approved"), ("deploy_approved")) but missing
  // from its TypedDict; LangGraph would drop them silently, Trellis needs them declared.
  intent: channel.value<Intent | null>(null),
  plan_approved: channel.value<boolean | null>(null),
  deploy_approved: channel.value<boolean | null>(null),
};

/**
 * The pipeline's state values.
 *
 * @example
 * const s: PipelineState = (await graph.getState({ threadId })).values;
 */
export type PipelineState = StateOf<typeof pipelineSchema>;

/**
 * What a node returns (or a caller sends as input): a partial state.
 *
 * @example
 * const update: PipelineUpdate = { plan_approved: true, pending_approval: null };
 */
export type PipelineUpdate = UpdateOf<typeof pipelineSchema>;

/**
 * The default number of IaC → review attempts (the seed's `max_retries`).
 *
 * @example
 * initialState({ userInput, requestId, environment: "dev", dryRun: false }).max_retries === MAX_RETRIES;
 */
export const MAX_RETRIES = 3;

/**
 * The seed's `initial_state` for a new request: its input keys (the graph's `input`). The seed's other
 * fields start at their defaults on a new thread, and the orchestrator clears a thread's earlier
 * outputs and approvals when it starts a new change.
 *
 * @example
 * await graph.invoke(initialState({ userInput: "create an S3 bucket for logs", requestId: "req-1",
 *   environment: "dev", dryRun: false }), { threadId: "req-1" });
 */
export function initialState(options: {
  userInput: string;
  requestId: string;
  environment: Environment;
  dryRun: boolean;
}): PipelineUpdate {
  return {
    request_id: options.requestId,
    messages: [{ role: "user", content: options.userInput }],
    environment: options.environment,
    dry_run: options.dryRun,
    max_retries: MAX_RETRIES,
  };
}

/**
 * The last message a person wrote. (The seed reads `messages[-1]`, which after an agent's reply is the
 * agent's own text.)
 *
 * @example
 * lastUserText(state.messages); // "create an S3 bucket for logs in prd with versioning"
 */
export function lastUserText(messages: readonly PipelineMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    // a chat UI's request may come as content blocks (text, images): the request is their text
    if (m?.role === "user") return messageText(m);
  }
  return "";
}
