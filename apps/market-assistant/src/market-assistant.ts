import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { CompiledGraph } from "@trellis/core";
import type { ChatModel } from "@trellis/models";
import type { agentStateSchema } from "./agent/agent-state.js";
import { buildConversationGraph } from "./agent/conversation-graph.js";
import { modelFromEnv } from "./agent/model-from-env.js";
import { createOfflineMarketModel } from "./agent/offline-model.js";
import { createQueryGraphDatabaseTool } from "./agent/query-tool.js";
import { type MarketAssistantConfig, readConfig } from "./app-config.js";
import { type CompanyDataset, SAMPLE_DATASET } from "./companies/company-dataset.js";
import { type CompanyDirectory, CompanyGraph } from "./companies/company-graph.js";
import { installCompanyGraph } from "./companies/company-schema.js";
import { openPostgresDatabase } from "./database/postgres-database.js";
import type { SqlDatabase } from "./database/sql-database.js";
import { openSqliteDatabase } from "./database/sqlite-database.js";
import { consoleLogger, type Logger } from "./logger.js";
import { buildLlmSupervisor } from "./supervisor/llm-supervisor.js";
import { buildSupervisorGraph, type supervisorSchema } from "./supervisor/supervisor-graph.js";
import type { TranscriptStore } from "./transcript/chat-message.js";
import { RedisTranscriptStore } from "./transcript/redis-transcript-store.js";
import { SqliteTranscriptStore } from "./transcript/sqlite-transcript-store.js";

/** Options of {@link createMarketAssistant}; everything not given comes from the environment. */
export interface MarketAssistantOptions {
  /** Overrides of the configuration read from `env`. */
  config?: Partial<MarketAssistantConfig>;
  /** Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The model of the supervisor behind `query_graph_database`: an LLM agent whose tools query the
   * company graph. Default: the model configured in the environment when there is one; `null` (or no
   * configured model) keeps the offline keyword planner.
   */
  supervisorModel?: ChatModel | null;
  /** The model, or a function of the database's directory building it. Default: from the environment, else offline. */
  model?: ChatModel | ((directory: CompanyDirectory) => ChatModel);
  /** The transcript store. Default: Redis with `REDIS_URL`, else the embedded SQLite file. */
  store?: TranscriptStore;
  /** The company database. Default: PostgreSQL with `MARKET_ASSISTANT_DATABASE_URL`, else the SQLite file. */
  database?: SqlDatabase;
  /** Loaded into an empty database. Default {@link SAMPLE_DATASET}. */
  dataset?: CompanyDataset;
  logger?: Logger;
}

/** The app's parts, wired: what the routes, the CLI and the Trellis server use. */
export interface MarketAssistant {
  readonly config: MarketAssistantConfig;
  /** The conversation graph (`main_agent` ⇄ `tools`). */
  readonly graph: CompiledGraph<typeof agentStateSchema>;
  readonly supervisor: CompiledGraph<typeof supervisorSchema>;
  readonly companies: CompanyGraph;
  readonly database: SqlDatabase;
  readonly model: ChatModel;
  readonly store: TranscriptStore;
  readonly logger: Logger;
  /** Closes what it opened (the store and database it was not given are closed too). */
  close(): Promise<void>;
}

/**
 * Opens the company database (loading the sample dataset into an empty one), the transcript store and
 * the model, and builds the supervisor and conversation graphs.
 *
 * @example
 * const assistant = await createMarketAssistant(); // offline, SQLite, no Redis unless REDIS_URL is set
 * const app = createChatRoutes(assistant);
 */
export async function createMarketAssistant(options: MarketAssistantOptions = {}): Promise<MarketAssistant> {
  const env = options.env ?? process.env;
  const config = { ...readConfig(env), ...options.config };
  const logger = options.logger ?? consoleLogger;
  const opened: { close(): Promise<void> }[] = [];
  try {
    const database = options.database ?? (await openDatabase(config));
    if (!options.database) opened.push(database);
    await installCompanyGraph(database, options.dataset ?? SAMPLE_DATASET);
    const companies = new CompanyGraph(database);
    const directory = await companies.directory();
    const offline = createOfflineMarketModel(directory);
    const fromEnv = options.model === undefined ? modelFromEnv(env, offline) : undefined;
    const model =
      typeof options.model === "function" ? options.model(directory) : (options.model ?? fromEnv ?? offline);
    // With a real model configured, the supervisor is an LLM agent querying the graph (seed 003); the
    // keyword planner stands in for it offline.
    const supervisorModel =
      options.supervisorModel !== undefined ? options.supervisorModel : fromEnv !== offline ? (fromEnv ?? null) : null;
    const store = options.store ?? openStore(config, logger);
    if (!options.store) opened.push(store);
    const supervisor = buildSupervisorGraph(companies);
    const llmSupervisor = supervisorModel
      ? { agent: buildLlmSupervisor(companies, supervisorModel, directory.currency), notice: directory.notice }
      : undefined;
    const queryTool = createQueryGraphDatabaseTool({ supervisor, logger, ...(llmSupervisor ? { llmSupervisor } : {}) });
    const graph = buildConversationGraph({ model, tools: [queryTool], logger, transcriptLimits: config.transcript });
    return {
      config,
      graph,
      supervisor,
      companies,
      database,
      model,
      store,
      logger,
      close: async () => {
        await Promise.allSettled(opened.map((resource) => resource.close()));
      },
    };
  } catch (error) {
    await Promise.allSettled(opened.map((resource) => resource.close()));
    throw error;
  }
}

async function openDatabase(config: MarketAssistantConfig): Promise<SqlDatabase> {
  if (config.databaseUrl) return openPostgresDatabase({ url: config.databaseUrl, schema: config.postgresSchema });
  ensureDirectory(config.sqlitePath);
  return openSqliteDatabase(config.sqlitePath);
}

function openStore(config: MarketAssistantConfig, logger: Logger): TranscriptStore {
  if (config.redisUrl) {
    return new RedisTranscriptStore({
      url: config.redisUrl,
      keyPrefix: config.redisKeyPrefix,
      ttlSeconds: config.transcriptTtlSeconds,
      logger,
    });
  }
  ensureDirectory(config.sqlitePath);
  return new SqliteTranscriptStore({ path: config.sqlitePath, ttlSeconds: config.transcriptTtlSeconds });
}

function ensureDirectory(path: string): void {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
}
