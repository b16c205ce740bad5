import { agentNetworkSchema, createAgentNetwork, createReactAgent } from "@trellis/agents";
import type { CheckpointSaver, CompiledGraph, StateSchema } from "@trellis/core";
import { type ChatModel, type Message, systemMessage } from "@trellis/models";
import { AGENT_DEFINITIONS, AGENT_IDS, type AgentId, DEFAULT_AGENT } from "./agent-definitions.js";
import { type AgentToolSources, getToolsForAgent } from "./agent-tools.js";
import { INSPECTION_PAUSED_INPUT_POLICY } from "./paused-input.js";
import { withDutchRoundCap } from "./round-cap.js";
import { currentUserSettings, settingsLine } from "./user-settings.js";

/** The state of the inspection graph: the conversation and the agent that has it (`activeAgent`, the seed's `current_agent`). */
export const inspectionStateSchema = agentNetworkSchema;

/** The compiled inspection graph. */
export type InspectionGraph = CompiledGraph<typeof inspectionStateSchema>;

/** Options of {@link buildInspectionGraph}. */
export interface InspectionGraphOptions extends AgentToolSources {
  /** The model of each agent (one provider model for all, or the offline rule models). */
  models: Readonly<Record<AgentId, ChatModel>>;
  checkpointer?: CheckpointSaver;
}

/**
 * Model turns the reporting agent may take after the inspector's request: each clarification round
 * takes three (verify, request_clarification, submit), and the answers arrive as tool results, not as
 * new user messages.
 */
const REPORTING_MAX_ITERATIONS = 40;
/** The other agents' cap (`createReactAgent`'s default). */
const DEFAULT_MAX_ITERATIONS = 10;

/**
 * Builds the four agents (ReAct agents with their instructions, the user's settings in the system
 * prompt, and their tools) and joins them in an agent network: `route_from_start` sends each new input
 * to the persisted `activeAgent` (`general-agent` at first), and handoff tools move the conversation.
 * The graph declares its paused-input policy, `INSPECTION_PAUSED_INPUT_POLICY` (`resume`): a message
 * that arrives while the reporting agent waits in `request_clarification` answers its questions.
 *
 * @example
 * const graph = buildInspectionGraph({ models: createOfflineModels(), mcpTools: mcp.tools, settings, checkpointer });
 * await graph.invoke({ messages: [userMessage("Hallo")] }, { threadId: "t1" });
 */
export function buildInspectionGraph(options: InspectionGraphOptions): InspectionGraph {
  const agents = new Map(
    AGENT_IDS.map((id) => {
      const definition = AGENT_DEFINITIONS[id];
      const prompt = (messages: readonly Message[]): readonly Message[] => {
        const settings = settingsLine(currentUserSettings(options.settings));
        const text = settings ? `${definition.instructions}\n\n${settings}` : definition.instructions;
        return [systemMessage(text, { id: `system-${id}` }), ...messages];
      };
      const maxIterations = id === "reporting-agent" ? REPORTING_MAX_ITERATIONS : DEFAULT_MAX_ITERATIONS;
      const agent = createReactAgent({
        name: id,
        // ends a turn that reaches the cap in Dutch, before the framework's English cap message
        model: withDutchRoundCap(options.models[id], maxIterations),
        tools: getToolsForAgent(id, options),
        prompt,
        maxIterations,
      });
      return [id, agent as unknown as CompiledGraph<StateSchema>] as const;
    }),
  );
  return createAgentNetwork({
    agents: Object.fromEntries(agents),
    defaultAgent: DEFAULT_AGENT,
    name: "inspection-reporter",
    ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}),
    onInputWhilePaused: INSPECTION_PAUSED_INPUT_POLICY,
  });
}
