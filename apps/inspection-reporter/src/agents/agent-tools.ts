import { createHandoffTool } from "@trellis/agents";
import type { Tool } from "@trellis/models";
import type { McpServerName } from "../mcp/mcp-servers.js";
import { AGENT_DEFINITIONS, type AgentId } from "./agent-definitions.js";
import { requestClarification } from "./request-clarification.js";
import { createUpdateUserSettingsTool, type UserSettingsStore } from "./user-settings.js";

/** What {@link getToolsForAgent} draws on. */
export interface AgentToolSources {
  /** The tools of each MCP server. */
  mcpTools: Readonly<Record<McpServerName, readonly Tool[]>>;
  settings: UserSettingsStore;
}

/**
 * The tools of one agent, as the seed's `get_tools_for_agent`:
 * - `general-agent`: `transfer_to_history`, `transfer_to_regulation`, `transfer_to_reporting` and
 *   `update_user_settings`;
 * - `reporting-agent`: `request_clarification` (only it may pause the graph);
 * - the specialists: `transfer_to_general`, to hand a request outside their field back;
 * - then the tools of the MCP servers the agent's definition names.
 *
 * @example
 * getToolsForAgent("reporting-agent", { mcpTools: mcp.tools, settings }).map((t) => t.name);
 * // ["request_clarification", "transfer_to_general", "start_inspection_report", …]
 */
export function getToolsForAgent(agentId: AgentId, sources: AgentToolSources): Tool[] {
  const tools: Tool[] = [];
  if (agentId === "general-agent") {
    tools.push(
      createHandoffTool("history-agent", {
        description: "Hand over questions about the inspection history of a company.",
      }),
      createHandoffTool("regulation-agent", { description: "Hand over questions about food-safety rules." }),
      createHandoffTool("reporting-agent", { description: "Hand over making or finishing an inspection report." }),
      createUpdateUserSettingsTool(sources.settings),
    );
  } else {
    if (agentId === "reporting-agent") tools.push(requestClarification as unknown as Tool);
    tools.push(
      createHandoffTool("general-agent", {
        description: "Hand the conversation back to the general assistant when a request is outside your field.",
      }),
    );
  }
  for (const server of AGENT_DEFINITIONS[agentId].mcpServers) tools.push(...sources.mcpTools[server]);
  return tools;
}
