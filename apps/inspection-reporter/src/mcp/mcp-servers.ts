import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { loadMcpTools } from "@trellis/agents";
import type { Tool } from "@trellis/models";

/** The MCP servers shipped with the app (in `mcp-servers/`). */
export type McpServerName = "inspection" | "regulation" | "history";

/** Every server, in start order. */
export const MCP_SERVER_NAMES: readonly McpServerName[] = ["inspection", "regulation", "history"];

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

/** Options of {@link startMcpServers}. */
export interface StartMcpServersOptions {
  /** Where the inspection server keeps its reports (`<dataDir>/reports`). */
  dataDir: string;
  /** Extra environment for the server processes. */
  env?: Record<string, string>;
}

/** The running MCP servers: a connected client and its tools per server. */
export interface McpServers {
  clients: Readonly<Record<McpServerName, Client>>;
  tools: Readonly<Record<McpServerName, readonly Tool[]>>;
  /** Closes the clients, which ends the server processes. */
  close(): Promise<void>;
}

/**
 * Starts the three MCP servers as child processes over stdio, connects an MCP client to each and
 * loads their tools. If one fails to start, the others are closed again.
 *
 * @example
 * const mcp = await startMcpServers({ dataDir: ".trellis/inspection-reporter" });
 * mcp.tools.regulation.map((t) => t.name); // ["search_regulations", "get_regulation"]
 * await mcp.close();
 */
export async function startMcpServers(options: StartMcpServersOptions): Promise<McpServers> {
  const started: Client[] = [];
  const closeAll = async () => {
    await Promise.allSettled(started.map((c) => c.close()));
  };
  try {
    const entries = await Promise.all(
      MCP_SERVER_NAMES.map(async (name) => {
        const client = new Client({ name: `inspection-reporter/${name}`, version: "0.1.0" });
        started.push(client);
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [mcpServerScript(name), "--stdio"],
            env: { ...getDefaultEnvironment(), ...options.env, INSPECTION_DATA_DIR: options.dataDir },
            stderr: "inherit",
          }),
        );
        return [name, client, await loadMcpTools(client)] as const;
      }),
    );
    const clients = Object.fromEntries(entries.map(([name, client]) => [name, client])) as Record<
      McpServerName,
      Client
    >;
    const tools = Object.fromEntries(entries.map(([name, , list]) => [name, list])) as unknown as Record<
      McpServerName,
      readonly Tool[]
    >;
    return { clients, tools, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
