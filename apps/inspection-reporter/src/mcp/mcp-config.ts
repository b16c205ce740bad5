import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TrellisError } from "@trellis/core";

/** The MCP servers the agents use: each agent is bound to one of these by name. */
export type McpServerName = "inspection" | "regulation" | "history";

/** Every server, in start order. */
export const MCP_SERVER_NAMES: readonly McpServerName[] = ["inspection", "regulation", "history"];

/**
 * How one MCP server is started: a command over stdio, its arguments and its extra environment (on top
 * of the MCP SDK's safe default environment and `INSPECTION_DATA_DIR`).
 *
 * @example
 * const regulation: McpServerConfig = { command: "uvx", args: ["my-regulation-mcp"], env: { API_KEY: "…" } };
 */
export interface McpServerConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** Working directory of the process; default the app's. */
  cwd?: string;
}

/**
 * Which servers to run instead of the bundled ones; a server left out runs its bundled script.
 *
 * @example
 * const servers: McpServersConfig = { regulation: { command: "node", args: ["./my-regulation.mjs", "--stdio"] } };
 */
export type McpServersConfig = Partial<Record<McpServerName, McpServerConfig>>;

/**
 * Path of a shipped MCP server's script. The scripts are plain ES modules, so they run from the
 * sources and from `dist` alike (this file sits two levels below the package root in both).
 *
 * @example
 * spawn(process.execPath, [mcpServerScript("regulation"), "--stdio"]);
 */
export function mcpServerScript(name: McpServerName): string {
  return fileURLToPath(new URL(`../../mcp-servers/${name}-server.mjs`, import.meta.url));
}

/**
 * The bundled server of a name: this Node binary running the shipped script with `--stdio`.
 *
 * @example
 * bundledMcpServer("history"); // { command: "/usr/bin/node", args: [".../history-server.mjs", "--stdio"] }
 */
export function bundledMcpServer(name: McpServerName): McpServerConfig {
  return { command: process.execPath, args: [mcpServerScript(name), "--stdio"] };
}

/**
 * The server to start for a name: the configured one, else the bundled one.
 *
 * @example
 * resolveMcpServer("regulation", { regulation: { command: "my-mcp" } }).command; // "my-mcp"
 */
export function resolveMcpServer(name: McpServerName, config: McpServersConfig | undefined): McpServerConfig {
  return config?.[name] ?? bundledMcpServer(name);
}

/**
 * Reads an MCP configuration — `{ "regulation": { "command", "args", "env" } }`, or the same under an
 * `mcpServers` key as MCP clients write it — and checks it: only the three names the agents use, a
 * non-empty `command`, `args` a list of strings, `env` an object of strings. Anything else is an
 * `INVALID_ARGUMENT` error that names the entry and says what to write.
 *
 * @example
 * parseMcpConfig({ mcpServers: { history: { command: "node", args: ["history.mjs", "--stdio"] } } });
 * // { history: { command: "node", args: ["history.mjs", "--stdio"] } }
 */
export function parseMcpConfig(value: unknown): McpServersConfig {
  const root = isObject(value) && isObject(value.mcpServers) ? value.mcpServers : value;
  if (!isObject(root)) throw invalid(`the configuration must be a JSON object; got ${show(value)}.`);
  const out: McpServersConfig = {};
  for (const [name, entry] of Object.entries(root)) {
    if (!(MCP_SERVER_NAMES as readonly string[]).includes(name)) {
      throw invalid(`unknown server "${name}": the agents use ${MCP_SERVER_NAMES.join(", ")}.`);
    }
    if (!isObject(entry)) throw invalid(`"${name}" must be an object { command, args?, env? }; got ${show(entry)}.`);
    const { command, args, env, cwd } = entry;
    if (typeof command !== "string" || command.trim() === "") {
      throw invalid(`"${name}".command must be the program to run (a non-empty string); got ${show(command)}.`);
    }
    if (args !== undefined && (!Array.isArray(args) || !args.every((a) => typeof a === "string"))) {
      throw invalid(`"${name}".args must be a list of strings; got ${show(args)}.`);
    }
    if (env !== undefined && (!isObject(env) || !Object.values(env).every((v) => typeof v === "string"))) {
      throw invalid(`"${name}".env must be an object of strings; got ${show(env)}.`);
    }
    if (cwd !== undefined && typeof cwd !== "string") throw invalid(`"${name}".cwd must be a path; got ${show(cwd)}.`);
    out[name as McpServerName] = {
      command,
      ...(args ? { args: [...(args as string[])] } : {}),
      ...(env ? { env: { ...(env as Record<string, string>) } } : {}),
      ...(cwd ? { cwd } : {}),
    };
  }
  return out;
}

/**
 * The MCP configuration an environment names: `INSPECTION_MCP_CONFIG`, the path of a JSON file (or the
 * JSON itself when it starts with `{`); undefined when unset (the bundled servers run).
 *
 * @example
 * mcpConfigFromEnv({ INSPECTION_MCP_CONFIG: "./mcp.json" }); // { regulation: { … } }
 */
export function mcpConfigFromEnv(env: Readonly<Record<string, string | undefined>>): McpServersConfig | undefined {
  const raw = env.INSPECTION_MCP_CONFIG?.trim();
  if (!raw) return undefined;
  let text = raw;
  if (!raw.startsWith("{")) {
    try {
      text = readFileSync(raw, "utf8");
    } catch (error) {
      throw invalid(`INSPECTION_MCP_CONFIG names ${raw}, which cannot be read (${(error as Error).message}).`);
    }
  }
  try {
    return parseMcpConfig(JSON.parse(text));
  } catch (error) {
    if (error instanceof TrellisError) throw error;
    throw invalid(`INSPECTION_MCP_CONFIG is not JSON (${(error as Error).message}).`);
  }
}

function invalid(what: string): TrellisError {
  return new TrellisError(
    "INVALID_ARGUMENT",
    `MCP configuration: ${what} Write { "<inspection|regulation|history>": { "command": "…", "args": ["…"], "env": { "KEY": "value" } } }.`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
