#!/usr/bin/env node
// MCP server "history" (stdio): inspection history of companies by KVK number.
// SAMPLE DATA: see history-data.mjs — invented companies and inspections.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";
import { fold } from "./dutch-search.mjs";
import { COMPANIES } from "./history-data.mjs";

const json = (/** @type {unknown} */ value) => ({
  content: [{ type: /** @type {const} */ ("text"), text: JSON.stringify(value) }],
});
const NOTE = "Voorbeeldgegevens (verzonnen bedrijven en inspecties) voor de Trellis-demo.";

/** The history MCP server over the sample data. */
export function createHistoryServer() {
  const server = new McpServer({ name: "history", version: "1.0.0" });
  server.registerTool(
    "get_inspection_history",
    {
      description: "Company data and past inspections (newest first) for a KVK number (8 digits).",
      annotations: { readOnlyHint: true },
      inputSchema: { kvk_number: z.string().describe("KVK number, 8 digits") },
    },
    async ({ kvk_number }) => {
      const kvk = kvk_number.replace(/[\s.-]/g, "");
      const company = COMPANIES.find((c) => c.kvk_number === kvk);
      if (!company) return json({ kvk_number: kvk, found: false, note: NOTE });
      const inspections = [...company.inspections].sort((a, b) => b.date.localeCompare(a.date));
      return json({ found: true, ...company, inspections, note: NOTE });
    },
  );
  server.registerTool(
    "search_companies",
    {
      description: "Find companies by (part of) their name; returns name, KVK number and address.",
      annotations: { readOnlyHint: true },
      inputSchema: { name: z.string() },
    },
    async ({ name }) => {
      const wanted = fold(name).trim();
      const matches = COMPANIES.filter((c) => wanted && fold(c.name).includes(wanted)).map((c) => ({
        kvk_number: c.kvk_number,
        name: c.name,
        address: c.address,
      }));
      return json({ query: name, matches, note: NOTE });
    },
  );
  return server;
}

if (process.argv.includes("--stdio")) {
  await createHistoryServer().connect(new StdioServerTransport());
}
