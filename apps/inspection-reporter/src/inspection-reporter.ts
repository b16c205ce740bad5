import { join, resolve } from "node:path";
import type { CheckpointSaver } from "@trellis/core";
import type { ChatModel } from "@trellis/models";
import { type AgentModels, agentModelsFromEnv } from "./agent-models.js";
import type { AgentId } from "./agents/agent-definitions.js";
import { buildInspectionGraph, type InspectionGraph } from "./agents/inspection-graph.js";
import { UserSettingsStore } from "./agents/user-settings.js";
import { type McpServersConfig, mcpConfigFromEnv } from "./mcp/mcp-config.js";
import { type McpRestartPolicy, type McpServers, startMcpServers } from "./mcp/mcp-servers.js";
import { consoleLogger, type Logger } from "./orchestrator/logger.js";

/** Options of {@link createInspectionReporter}. */
export interface InspectionReporterOptions {
  /** Where threads are checkpointed. Leave out when a server injects its own saver. */
  checkpointer?: CheckpointSaver;
  /**
   * Where the inspection MCP server keeps reports and where user settings live. Default
   * `INSPECTION_DATA_DIR`, else `.trellis/inspection-reporter` under the working directory.
   */
  dataDir?: string;
  /** The agents' models; default from the environment (see `agentModelsFromEnv`), offline rules otherwise. */
  models?: Readonly<Record<AgentId, ChatModel>>;
  /** Environment for the model configuration and the data directory. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
  /** How an MCP server that exited is restarted (backoff, how long tool calls wait for it). */
  mcpRestart?: McpRestartPolicy;
  /**
   * MCP servers to run instead of the bundled ones (command, args, env per server). Default
   * `INSPECTION_MCP_CONFIG` (a JSON file, or inline JSON), else the bundled servers.
   */
  mcpServers?: McpServersConfig;
}

/**
 * The running app: MCP servers, models and the graph. Conversations run through a Trellis server's run
 * service: `startInspectionServer` (HTTP) or `openInspectionRuntime` (in-process, for the CLI and tests).
 */
export interface InspectionReporter {
  graph: InspectionGraph;
  mcp: McpServers;
  settings: UserSettingsStore;
  models: Readonly<Record<AgentId, ChatModel>>;
  /** `offline` or `<provider>/<model>`. */
  modelLabel: string;
  dataDir: string;
  /** Where the orchestrator of the app's routes logs. */
  logger: Logger;
  /** Stops the MCP server processes (supervised: one that exits on its own is restarted). */
  close(): Promise<void>;
}

/**
 * The data directory an environment names: `INSPECTION_DATA_DIR`, else `.trellis/inspection-reporter`.
 *
 * @example
 * dataDirFromEnv({ INSPECTION_DATA_DIR: "/var/lib/inspections" }); // "/var/lib/inspections"
 */
export function dataDirFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return resolve(env.INSPECTION_DATA_DIR || join(".trellis", "inspection-reporter"));
}

/**
 * Starts the app: the three MCP servers as child processes, the agents' models and the agent network.
 * Close it to stop the MCP servers.
 *
 * @example
 * const app = await createInspectionReporter({ dataDir: "/var/lib/inspections" });
 * const runtime = await openInspectionRuntime({ dbPath: "threads.sqlite", app });
 * const turn = await runtime.orchestrator.processMessage("t1", "Wat zijn de regels voor koeling?");
 * await runtime.close();
 * await app.close();
 */
export async function createInspectionReporter(options: InspectionReporterOptions = {}): Promise<InspectionReporter> {
  const env = options.env ?? process.env;
  const dataDir = options.dataDir ? resolve(options.dataDir) : dataDirFromEnv(env);
  const chosen: AgentModels = options.models
    ? { models: { ...options.models }, label: "custom" }
    : agentModelsFromEnv(env);
  const settings = new UserSettingsStore(join(dataDir, "user-settings.json"));
  const servers = options.mcpServers ?? mcpConfigFromEnv(env);
  const mcp = await startMcpServers({
    dataDir,
    ...(options.mcpRestart ? { restart: options.mcpRestart } : {}),
    ...(servers ? { servers } : {}),
  });
  const graph = buildInspectionGraph({
    models: chosen.models,
    mcpTools: mcp.tools,
    settings,
    ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}),
  });
  const logger = options.logger ?? consoleLogger;
  return {
    graph,
    mcp,
    settings,
    models: chosen.models,
    modelLabel: chosen.label,
    dataDir,
    logger,
    close: () => mcp.close(),
  };
}
