export type { ActionRequest, HumanInterrupt, HumanInterruptConfig, HumanResponse } from "./hitl.js";
export {
  type CreateReactAgentParams,
  createReactAgent,
  createReactAgentAnnotation,
  type Prompt,
} from "./react-agent.js";
export type { ResponseFormat } from "./structured-response.js";
export { type ToolLike, ToolNode, type ToolNodeOptions, toolsCondition } from "./tool-node.js";
