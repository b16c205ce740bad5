export {
  checkToolResults,
  FRONTEND_TOOLS_KEY,
  FrontendToolError,
  frontendToolDefinitions,
  frontendTools,
  openToolCalls,
  withFrontendTools,
} from "./frontend-tools.js";
export {
  type AgentNetworkOptions,
  agentNetworkSchema,
  createAgentNetwork,
  createHandoffTool,
} from "./handoff.js";
export {
  editedActionOf,
  type HitlAction,
  hitlRequest,
  type ReadDecisions,
  type ReviewDecision,
  type ReviewDecisionType,
  readDecisions,
  type ToolReviewRequest,
} from "./hitl-request.js";
export { type LoadMcpToolsOptions, loadMcpTools, type McpClient, mcpContentText } from "./mcp-tools.js";
export { createReactAgent, type ReactAgentOptions, reactAgentSchema } from "./react-agent.js";
export { createToolNode, type ToolNodeOptions } from "./tool-node.js";
export type { InterruptOn } from "./tool-review.js";
export { toolsCondition } from "./tools-condition.js";
