/**
 * The pipeline graph (the seed's `get_pipeline`): ten nodes, the seed's edges and path maps.
 */
import { join } from "node:path";
import type { CheckpointSaver } from "@trellis/checkpoint";
import { type CompiledGraph, END, StateGraph } from "@trellis/core";
import type { ChatModel } from "@trellis/models";
import { offlineConversationModel } from "./agents/assistant-replies.js";
import { modelFromEnv, requestIdGenerator, resolveDataDir } from "./app-config.js";
import { ArtifactStore } from "./artifacts.js";
import { type DeployExecutor, findExecutor } from "./deploy/executor.js";
import { createNodes } from "./nodes.js";
import { type PipelinePolicy, resolvePolicy } from "./policy.js";
import { routeFromDeployApproval, routeFromOrchestrator, routeFromPlanApproval, routeFromReview } from "./router.js";
import { pipelineSchema } from "./state.js";

/**
 * The compiled pipeline.
 *
 * @example
 * const graph: PipelineGraph = createPipelineGraph({ checkpointer: new MemorySaver() });
 */
export type PipelineGraph = CompiledGraph<typeof pipelineSchema>;

/**
 * The assistant id the Trellis server hosts the pipeline under.
 *
 * @example
 * client.runs.stream(threadId, ASSISTANT_ID, { input });
 */
export const ASSISTANT_ID = "infra-pipeline";

/**
 * Options of {@link createPipelineGraph}. Everything has a default read from the environment.
 *
 * @example
 * createPipelineGraph({ artifactsDir: "/tmp/artifacts", model: null, checkpointer: new MemorySaver() });
 */
export interface PipelineGraphOptions {
  /** Where Terraform files and records go. Default `<data dir>/artifacts`. */
  artifactsDir?: string;
  /** A model for the LLM-backed agents; `null` forces offline; undefined reads the environment. */
  model?: ChatModel | null;
  /** The policy (project, owner, region, required tags). */
  policy?: Partial<PipelinePolicy>;
  checkpointer?: CheckpointSaver;
  /** Ids for requests that arrive without one (new requests on a reused thread). */
  newRequestId?: () => string;
  /** Variables to read instead of `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Directory the default data directory is relative to. Default `process.cwd()`. */
  cwd?: string;
  /**
   * What deploys: an executor, `null` for none (every deployment refused), or undefined to find
   * `terraform`/`tofu` as `INFRA_AGENT_EXECUTOR` and `PATH` say ({@link findExecutor}).
   */
  executor?: DeployExecutor | null;
}

/**
 * Builds and compiles the pipeline.
 *
 * @example
 * const graph = createPipelineGraph({ checkpointer: new MemorySaver() });
 * const paused = await graph.invoke(initialState({ userInput, requestId: "req-1", environment: "prd", dryRun: false }),
 *   { threadId: "req-1" });
 * paused.__interrupt__?.[0]?.value; // { gate: "plan", question: "Approve the plan?", … }
 */
export function createPipelineGraph(options: PipelineGraphOptions = {}): PipelineGraph {
  const env = options.env ?? process.env;
  const artifactsDir = options.artifactsDir ?? join(resolveDataDir(env, options.cwd ?? process.cwd()), "artifacts");
  const model = options.model === null ? undefined : (options.model ?? modelFromEnv(env));
  const nodes = createNodes({
    store: new ArtifactStore(artifactsDir),
    policy: resolvePolicy(options.policy),
    model,
    conversationModel: model ?? offlineConversationModel(),
    newRequestId: options.newRequestId ?? requestIdGenerator(),
    executor:
      options.executor === null
        ? { reason: "no deployment executor is configured" }
        : options.executor
          ? { executor: options.executor }
          : findExecutor(env),
  });

  // a caller gives the request (messages, request_id) and its typed settings; the agents' outputs, the
  // gates and the retry count are the graph's own
  const graph = new StateGraph(pipelineSchema, {
    name: ASSISTANT_ID,
    input: ["request_id", "messages", "environment", "dry_run", "max_retries"],
  });

  // Add nodes for each agent
  graph.addNode("orchestrator", nodes.orchestrator);
  graph.addNode("planning", nodes.planning);
  graph.addNode("plan_approval", nodes.plan_approval);
  graph.addNode("iac", nodes.iac);
  graph.addNode("review", nodes.review);
  graph.addNode("deploy_approval", nodes.deploy_approval);
  graph.addNode("deploy_validate", nodes.deploy_validate);
  graph.addNode("rejected", nodes.rejected);
  graph.addNode("end_success", nodes.end_success);
  graph.addNode("end_failure", nodes.end_failure);

  // Set entry point
  graph.setEntryPoint("orchestrator");

  // Define edges
  graph.addConditionalEdges("orchestrator", routeFromOrchestrator, {
    change: "planning",
    query: END,
    conversation: END,
  });
  graph.addEdge("planning", "plan_approval");
  graph.addConditionalEdges("plan_approval", routeFromPlanApproval, {
    approved: "iac",
    rejected: "rejected",
    pending: END, // wait for user input
  });
  graph.addEdge("iac", "review");
  graph.addConditionalEdges("review", routeFromReview, {
    passed: "deploy_approval",
    needs_revision: "iac", // retry loop
    failed: "end_failure",
  });
  graph.addConditionalEdges("deploy_approval", routeFromDeployApproval, {
    approved: "deploy_validate",
    rejected: "rejected",
    dry_run: "end_success",
    pending: END, // wait for user input
  });
  graph.addEdge("deploy_validate", "end_success");
  graph.addEdge("rejected", END);
  graph.addEdge("end_success", END);
  graph.addEdge("end_failure", END);

  return graph.compile({
    ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}),
    // nothing is deployed that a person did not approve: input while a gate waits is refused, not
    // taken as a new request that would silently drop the pending approval
    onInputWhilePaused: "reject",
    // typed inputs (environment, dry_run, max_retries) are checked by their channels' zod schemas
    // (state.ts) before anything is written or planned: a 400 over the API
  });
}

/**
 * The factory the Trellis server calls (`trellis.json`: `"graph": "createGraph"`): the pipeline with
 * every setting from the environment; the server gives it its own checkpointer.
 *
 * @example
 * { "graphs": { "infra-pipeline": { "module": "@trellis/app-infra-pipeline", "graph": "createGraph" } } }
 */
export function createGraph(): PipelineGraph {
  return createPipelineGraph();
}
