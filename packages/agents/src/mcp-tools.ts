import { type JsonSchema, type Tool, tool } from "@trellis/models";

/**
 * What {@link loadMcpTools} needs of an MCP client: the official SDK's `Client`
 * (`@modelcontextprotocol/sdk/client/index.js`) fits it. Declared here so that `@trellis/agents` does
 * not depend on the MCP SDK: a project that uses MCP installs the SDK itself to make its client.
 *
 * @example
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * const client: McpClient = new Client({ name: "inspector", version: "1.0.0" });
 */
export interface McpClient {
  listTools(params: { cursor?: string }): Promise<{
    tools: ReadonlyArray<{ name: string; description?: string | undefined; inputSchema: unknown }>;
    nextCursor?: string | undefined;
  }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: { signal?: AbortSignal },
  ): Promise<Record<string, unknown>>; // read: content, isError, structuredContent
}

/**
 * Options of {@link loadMcpTools}.
 *
 * @example
 * const options: LoadMcpToolsOptions = { prefix: "inspection_", only: ["list_sites", "get_report"] };
 * const tools = await loadMcpTools(client, options);
 */
export interface LoadMcpToolsOptions {
  /** Prefix for tool names, to keep tools of several servers apart (e.g. "inspection_"). */
  prefix?: string;
  /** Only these MCP tools (by their server-side name). */
  only?: readonly string[];
}

/**
 * Turns the tools of a connected MCP client into Trellis tools. Calling one calls the server; text
 * content comes back as the tool's output (structured content as JSON when the server sends it), and
 * a result the server marks as an error becomes an error tool message for the model.
 *
 * @example
 * const client = new Client({ name: "inspector", version: "1.0.0" });
 * await client.connect(new StdioClientTransport({ command: "node", args: ["mcp/inspection.js"] }));
 * const tools = await loadMcpTools(client);
 * const agent = createReactAgent({ model, tools });
 */
export async function loadMcpTools(client: McpClient, options: LoadMcpToolsOptions = {}): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    for (const spec of page.tools) {
      if (options.only && !options.only.includes(spec.name)) continue;
      const remoteName = spec.name;
      tools.push(
        tool({
          name: `${options.prefix ?? ""}${remoteName}`.slice(0, 64),
          description: spec.description?.trim() || `MCP tool ${remoteName}`,
          parameters: { ...(spec.inputSchema as JsonSchema), type: "object" },
          fn: async (args, ctx) => {
            const result = await client.callTool(
              { name: remoteName, arguments: args },
              undefined,
              ctx.signal ? { signal: ctx.signal } : {},
            );
            const text = mcpContentText(result.content);
            if (result.isError) throw new Error(text || `MCP tool ${remoteName} failed`);
            if (result.structuredContent !== undefined) return result.structuredContent;
            return text;
          },
        }),
      );
    }
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * The text parts of an MCP tool result's `content`, joined by newlines (other parts are left out).
 *
 * @example
 * mcpContentText([{ type: "text", text: "ok" }, { type: "image", data: "…" }]); // "ok"
 */
export function mcpContentText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: string; text?: string }) => (part?.type === "text" ? (part.text ?? "") : ""))
    .filter(Boolean)
    .join("\n");
}
