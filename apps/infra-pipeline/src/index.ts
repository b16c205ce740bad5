/**
 * `@trellis/app-infra-pipeline` — the infra-agent 4-agent pipeline of seed 001 on Trellis: planning →
 * plan approval → IaC ⇄ review → deploy approval → validate, with dry runs, an interactive CLI and a
 * Mermaid drawing. The Trellis server hosts it as `infra-pipeline` through {@link createGraph}.
 */
export {
  answerFromInventory,
  handleConversation,
  handleQuery,
  type InventoryEntry,
  offlineConversationModel,
  readInventory,
} from "./agents/assistant-replies.js";
export {
  type DeployRequest,
  DeployValidateAgent,
  type DeployValidateAgentOptions,
} from "./agents/deploy-validate-agent.js";
export { IaCAgent, type IaCAgentOptions, type ImplementRequest } from "./agents/iac-agent.js";
export { PlanningAgent, type PlanningAgentOptions } from "./agents/planning-agent.js";
export { ReviewAgent, type ReviewAgentOptions } from "./agents/review-agent.js";
export { type AppEnv, modelFromEnv, requestIdGenerator, resolveDatabasePath, resolveDataDir } from "./app-config.js";
export { type ApprovalRequest, type GateDecision, parseApproval, readGateAnswer } from "./approval-gates.js";
export { ArtifactStore, isTerraformFileName, type RecordName, type SourceFile, sha256 } from "./artifacts.js";
export {
  AcceptanceCriterion,
  ArtifactFile,
  ChangeAction,
  CheckCategory,
  CriterionCheck,
  DeploymentOutput,
  Environment,
  Finding,
  IaCOutput,
  Impact,
  type Intent,
  PlanningOutput,
  Requirement,
  ResourceKind,
  ResourceSpec,
  ReviewOutput,
  ReviewStatus,
} from "./contracts.js";
export { type CriterionResult, evaluateCriterion, plannedChanges } from "./deploy/criteria.js";
export { formatDeploymentOutput, formatIaCOutput, formatPlanningOutput, formatReviewOutput } from "./format.js";
export {
  ASSISTANT_ID,
  createGraph,
  createPipelineGraph,
  type PipelineGraph,
  type PipelineGraphOptions,
} from "./graph.js";
export { FIXABLE_RULES, type GenerateInput, generateTerraform } from "./iac/terraform-generator.js";
export {
  generateStructured,
  parseJson,
  StructuredOutputError,
  type StructuredRequest,
} from "./llm/structured-output.js";
export { mermaidEdges, renderMermaid } from "./mermaid.js";
export { createNodes, type NodeDeps } from "./nodes.js";
export {
  InfraPipeline,
  outcomeOf,
  type PipelineEvent,
  type PipelineOutcome,
  type PipelineStatus,
  type StreamRequestOptions,
} from "./pipeline.js";
export { type BuildPlanInput, buildPlan } from "./planning/plan-builder.js";
export { type ParsedRequest, parseRequest } from "./planning/request-parser.js";
export {
  approvalReasons,
  DEFAULT_POLICY,
  followsNamingConvention,
  NAME_ATTRIBUTE,
  type PipelinePolicy,
  physicalName,
  requiredTagValues,
  resolvePolicy,
  TAGGABLE_TYPES,
} from "./policy.js";
export { REVIEW_CATEGORIES, type ReviewInput, runReviewRules } from "./review/review-rules.js";
export {
  CHANGE_WORDS,
  classifyIntent,
  QUERY_WORDS,
  routeFromDeployApproval,
  routeFromOrchestrator,
  routeFromPlanApproval,
  routeFromReview,
} from "./router.js";
export {
  type ApprovalGate,
  initialState,
  lastUserText,
  MAX_RETRIES,
  type PipelineMessage,
  type PipelineState,
  type PipelineUpdate,
  pipelineSchema,
} from "./state.js";
export {
  type HclAttribute,
  type HclBlock,
  type HclError,
  type HclFile,
  type HclValue,
  parseHcl,
} from "./terraform/hcl-parser.js";
export { evaluate, loadModule, type TfModule, type TfResource, Unknown } from "./terraform/terraform-module.js";
