#!/usr/bin/env node
// MCP server "regulation" (stdio): search over a small corpus of Dutch food-safety rules.
// SAMPLE CONTENT: see regulation-corpus.mjs — summaries written for the demo, not official law texts.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";
import { rank } from "./dutch-search.mjs";
import { CORPUS, DISCLAIMER } from "./regulation-corpus.mjs";

const json = (/** @type {unknown} */ value) => ({
  content: [{ type: /** @type {const} */ ("text"), text: JSON.stringify(value) }],
});

/** The regulation MCP server over the sample corpus. */
export function createRegulationServer() {
  const server = new McpServer({ name: "regulation", version: "1.0.0" });
  server.registerTool(
    "search_regulations",
    {
      description:
        "Search Dutch food-safety regulations (sample corpus). Returns the best matching articles with id, " +
        "title, source and text, and a disclaimer to pass on.",
      annotations: { readOnlyHint: true },
      inputSchema: {
        query: z.string().describe("What to look for, in Dutch, e.g. 'temperatuur koeling'"),
        limit: z.number().int().min(1).max(10).optional().describe("Most results, default 3"),
      },
    },
    async ({ query, limit }) => {
      const results = rank(CORPUS, query, limit ?? 3).map(({ doc, score }) => ({
        id: doc.id,
        title: doc.title,
        source: doc.source,
        text: doc.text,
        score,
      }));
      return json({ query, results, disclaimer: DISCLAIMER });
    },
  );
  server.registerTool(
    "get_regulation",
    {
      description: "One article of the sample regulation corpus by id (e.g. VW-KOEL-01).",
      annotations: { readOnlyHint: true },
      inputSchema: { id: z.string() },
    },
    async ({ id }) => {
      const doc = CORPUS.find((d) => d.id.toLowerCase() === id.trim().toLowerCase());
      if (!doc) {
        return {
          content: [
            { type: "text", text: `Geen artikel met id "${id}". Bekende ids: ${CORPUS.map((d) => d.id).join(", ")}.` },
          ],
          isError: true,
        };
      }
      return json({ ...doc, disclaimer: DISCLAIMER });
    },
  );
  return server;
}

if (process.argv.includes("--stdio")) {
  await createRegulationServer().connect(new StdioServerTransport());
}
