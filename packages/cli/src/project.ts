import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type CheckpointSaver, MemorySaver, TrellisError } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import {
  type AnyGraph,
  createServer,
  importOptional,
  loadConfig,
  loadGraphs,
  type ResolvedConfig,
  type RunStore,
  resolveConfig,
  SqliteRunStore,
  type TrellisConfig,
  type TrellisServer,
} from "@trellis/server";
import { CliError, type CliIo } from "./io.js";

/** A loaded `trellis.json` with its defaults filled in. */
export interface Project {
  path: string;
  config: TrellisConfig;
  resolved: ResolvedConfig;
}

/**
 * Reads `--config` (default `trellis.json` in the working directory, else `langgraph.json`), and sets
 * the variables of a `langgraph.json`'s `env` that the environment does not set.
 *
 * @example
 * const project = await loadProject(io, undefined); // ./trellis.json
 */
export async function loadProject(io: CliIo, configPath: string | undefined): Promise<Project> {
  // without --config: trellis.json, else a LangGraph project's langgraph.json
  const fallback = resolve(io.cwd, "langgraph.json");
  const path = resolve(
    io.cwd,
    configPath ?? (!existsSync(resolve(io.cwd, "trellis.json")) && existsSync(fallback) ? fallback : "trellis.json"),
  );
  let config: TrellisConfig;
  try {
    config = await loadConfig(path);
  } catch (error) {
    if ((error as TrellisError).code === "INVALID_CONFIG" && /Cannot read/.test((error as Error).message)) {
      throw new CliError(
        `No config at ${path}. Run trellis in a folder with a trellis.json, or pass --config path/to/trellis.json.`,
      );
    }
    throw error;
  }
  // langgraph.json's env: the variables the graphs read, unless the environment sets them already
  for (const [key, value] of Object.entries(config.env ?? {})) {
    if (io.env[key] === undefined) io.env[key] = value;
    if (process.env[key] === undefined) process.env[key] = value;
  }
  return { path, config, resolved: resolveConfig(config, io.env) };
}

/**
 * The config entry of a graph, or a plain-words error that lists the graphs there are.
 *
 * @example
 * entryOf(project, "tutor").module; // "./apps/tutor/src/server-entry.ts"
 */
export function entryOf(project: Project, graphId: string | undefined) {
  const ids = Object.keys(project.resolved.graphs);
  if (!graphId) throw new CliError(`Name a graph. Graphs in ${project.path}: ${ids.join(", ") || "none"}.`, 2);
  const entry = project.resolved.graphs[graphId];
  if (!entry) throw new CliError(`No graph "${graphId}" in ${project.path}. Graphs: ${ids.join(", ") || "none"}.`);
  return entry;
}

/**
 * Loads one graph of the config in this process (its routes are not built), with `saver` injected.
 *
 * @example
 * const graph = await loadGraph(project, "approval-flow", new MemorySaver());
 */
export async function loadGraph(project: Project, graphId: string, saver: CheckpointSaver): Promise<AnyGraph> {
  const { routes: _routes, ...entry } = entryOf(project, graphId);
  const graphs = await loadGraphs({ [graphId]: entry }, saver, project.resolved.baseDir);
  return (graphs.get(graphId) as { graph: AnyGraph }).graph;
}

/** The configured saver and the server's thread records, opened by a CLI command that only reads them. */
export interface ThreadReader {
  saver: CheckpointSaver;
  store: RunStore;
  close(): Promise<void>;
}

/**
 * Opens the saver the config names (SQLite file or Postgres) and the server's thread table beside it,
 * for the commands that read threads (`threads`, `state`); runs go through {@link openServer}.
 *
 * @example
 * const reader = await openThreadReader(project);
 * try { … } finally { await reader.close(); }
 */
export async function openThreadReader(project: Project): Promise<ThreadReader> {
  const saver = project.resolved.saver;
  if (saver.kind === "sqlite") {
    if (saver.path !== ":memory:") mkdirSync(dirname(saver.path), { recursive: true });
    const sqlite = new SqliteSaver({ filename: saver.path });
    const store = new SqliteRunStore(sqlite.database);
    return {
      saver: sqlite,
      store,
      async close() {
        await store.close();
        await sqlite.close?.();
      },
    };
  }
  // loaded only for a postgres saver: a SQLite project never installs pg
  const needs = { feature: 'the "postgres" saver', packages: ["@trellis/checkpoint-postgres", "pg"] };
  const { PostgresSaver } = await importOptional(() => import("@trellis/checkpoint-postgres"), needs);
  const { PostgresRunStore } = await importOptional(() => import("@trellis/server/postgres"), needs);
  const pg = new PostgresSaver({ connectionString: saver.url, ...(saver.schema ? { schema: saver.schema } : {}) });
  try {
    await pg.setup();
  } catch (error) {
    await pg.close?.();
    throw new CliError(`Cannot reach the Postgres saver (${redact(saver.url)}): ${(error as Error).message}`);
  }
  const store = new PostgresRunStore({ pool: pg.pool, ...(saver.schema ? { schema: saver.schema } : {}) });
  await store.setup();
  return {
    saver: pg,
    store,
    async close() {
      await store.close();
      await pg.close?.();
    },
  };
}

/**
 * The project's server, built in this process without listening: the saver, thread table and queue of
 * `trellis serve`, with one worker. `trellis run` starts and follows its runs through `server.runs`, so
 * they are the same runs, with the same records and events, as runs made over HTTP. Close it when done:
 * its worker stops.
 *
 * @example
 * const server = await openServer(project, io);
 * try { await server.runs.invoke({ assistantId: "approval-flow", as: "app", input: { request: "x" } }); }
 * finally { await server.close(); }
 */
export async function openServer(project: Project, io: CliIo): Promise<TrellisServer> {
  const saver = project.resolved.saver;
  try {
    return await createServer(project.config, { env: io.env, workers: 1 });
  } catch (error) {
    if ((error as { details?: { reason?: unknown } }).details?.reason === "DATA_FILE_IN_USE") {
      throw new CliError(
        `${(error as Error).message}\n  trellis run serves the project in its own process: stop the other server first, or continue the thread there (its studio or API).`,
      );
    }
    const code = String((error as { code?: unknown }).code);
    if (saver.kind !== "postgres" || error instanceof TrellisError || !UNREACHABLE.test(code)) throw error;
    throw new CliError(`Cannot reach the Postgres saver (${redact(saver.url)}): ${(error as Error).message}`);
  }
}

/** Error codes of a database that cannot be reached: network errors, SQLSTATE classes 08, 28, 3D. */
const UNREACHABLE = /^(E[A-Z_]+|08\w{3}|28\w{3}|3D\w{3})$/;

/** A saver for commands that read no threads (draw). */
export function scratchSaver(): CheckpointSaver {
  return new MemorySaver();
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}
