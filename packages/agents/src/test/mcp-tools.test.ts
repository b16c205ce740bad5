import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { RuleChatModel, userMessage } from "@trellis/models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReactAgent, loadMcpTools } from "../index.js";
// @ts-expect-error: a plain JavaScript fixture without type declarations
import { createCalculatorServer } from "./fixtures/calculator-mcp-server.mjs";

const fixture = fileURLToPath(new URL("./fixtures/calculator-mcp-server.mjs", import.meta.url));

const model = new RuleChatModel({
  rules: [
    {
      when: /add (\d+) and (\d+)/i,
      reply: (ctx) => ({
        toolCalls: [{ name: "add", args: { a: Number(ctx.match?.[1]), b: Number(ctx.match?.[2]) } }],
      }),
    },
    {
      when: /divide (\d+) by (\d+)/i,
      reply: (ctx) => ({
        toolCalls: [{ name: "divide", args: { a: Number(ctx.match?.[1]), b: Number(ctx.match?.[2]) } }],
      }),
    },
    { on: "tool", when: /./, reply: (ctx) => `Result: ${ctx.text}` },
  ],
});

async function ask(client: Client, question: string): Promise<string> {
  const tools = await loadMcpTools(client);
  const agent = createReactAgent({ model, tools });
  const out = await agent.invoke({ messages: [userMessage(question)] });
  return String(out.messages.at(-1)?.content);
}

describe("MCP tools over stdio (a real server process)", () => {
  const client = new Client({ name: "trellis-test", version: "1.0.0" });
  beforeAll(async () => {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixture, "--stdio"] }));
  });
  afterAll(async () => {
    await client.close();
  });

  it("lists the server's tools as Trellis tools with their schemas", async () => {
    const tools = await loadMcpTools(client);
    expect(tools.map((t) => t.name).sort()).toEqual(["add", "divide"]);
    expect(tools.find((t) => t.name === "add")?.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
    });
  });

  it("lets an agent call them", async () => {
    expect(await ask(client, "Please add 2 and 40")).toBe("Result: 42");
  });

  it("turns a server-side tool error into an error message for the model", async () => {
    expect(await ask(client, "divide 1 by 0")).toMatch(/cannot divide by zero/);
  });
});

describe("MCP tools over streamable HTTP", () => {
  let http: Server;
  let url: URL;
  const client = new Client({ name: "trellis-test", version: "1.0.0" });
  beforeAll(async () => {
    http = createServer((req, res) => {
      void (async () => {
        const server = createCalculatorServer();
        const transport = new StreamableHTTPServerTransport({});
        res.on("close", () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res);
      })();
    });
    http.listen(0, "127.0.0.1");
    await once(http, "listening");
    url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    await client.connect(new StreamableHTTPClientTransport(url));
  });
  afterAll(async () => {
    await client.close();
    http.closeAllConnections();
    http.close();
  });

  it("lets an agent call them", async () => {
    expect(await ask(client, "add 5 and 7")).toBe("Result: 12");
  });
});
