// Issue 36, inspection-reporter finding 4: the MCP servers are configurable — command, args and env per
// server, from the app's options or INSPECTION_MCP_CONFIG (a JSON file) — with the bundled servers as
// the default for any server not configured. Through the app's /chat route: a regulation question is
// answered by the user's own server, started with the configured args and env, while the report still
// goes through the bundled inspection server. A bad configuration is a clear error naming the entry.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TrellisError } from "@trellis/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createInspectionReporter } from "../inspection-reporter.js";
import { mcpConfigFromEnv, parseMcpConfig } from "../mcp/mcp-config.js";
import { createOfflineModels } from "../offline/offline-models.js";
import { silentLogger } from "../orchestrator/logger.js";
import { type InspectionServer, startInspectionServer } from "../serve.js";
import { closeDefaultInspectionReporter, useInspectionReporter } from "../server-entry.js";

const OWN_SERVER = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "own-regulation-server.mjs");

let dir: string | undefined;
let server: InspectionServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  await closeDefaultInspectionReporter();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function serve(env: Record<string, string>, mcpServers?: Parameters<typeof parseMcpConfig>[0]) {
  dir = mkdtempSync(join(tmpdir(), "inspection-mcp-config-"));
  vi.spyOn(console, "info").mockImplementation(() => {});
  const app = await createInspectionReporter({
    dataDir: join(dir, "data"),
    models: createOfflineModels(),
    logger: silentLogger,
    env,
    ...(mcpServers ? { mcpServers: parseMcpConfig(mcpServers) } : {}),
  });
  useInspectionReporter(app);
  server = await startInspectionServer({
    port: 0,
    env: {},
    config: {
      graphs: {
        "inspection-reporter": {
          module: "@trellis/app-inspection-reporter/server",
          graph: "buildGraph",
          routes: "createRoutes",
        },
      },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      baseDir: dir,
    },
  });
  return server;
}

async function chat(s: InspectionServer, threadId: string, message: string): Promise<string> {
  const res = await fetch(`${s.url}/apps/inspection-reporter/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ thread_id: threadId, message }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { reply: string }).reply;
}

const OWN = {
  regulation: {
    command: process.execPath,
    args: [OWN_SERVER, "--source=Handboek 2026"],
    env: { REGULATION_NOTE: "koelen onder 7 graden" },
  },
};

describe("configurable MCP servers", () => {
  it("runs the configured regulation server with its args and env; the others stay bundled", async () => {
    const s = await serve({}, { mcpServers: OWN });
    const answer = await chat(s, "own", "Wat zijn de regels voor het koelen van levensmiddelen?");
    expect(answer).toContain("**EIGEN-01 — Eigen regel**: Uit de eigen server: koelen onder 7 graden. (Handboek 2026)");
    expect(answer).not.toContain("VW-KOEL-01");
    // the bundled inspection server still makes reports
    const asked = await chat(s, "report", "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854");
    expect(asked).toContain("1. Wat is het adres van de inspectielocatie?");
  });

  it("reads INSPECTION_MCP_CONFIG (a JSON file) when the options name none", async () => {
    const configDir = mkdtempSync(join(tmpdir(), "inspection-mcp-file-"));
    try {
      const file = join(configDir, "mcp.json");
      writeFileSync(file, JSON.stringify({ mcpServers: OWN }));
      const s = await serve({ INSPECTION_MCP_CONFIG: file });
      expect(await chat(s, "env", "Welke regels gelden voor koeling?")).toContain("Uit de eigen server");
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it("without a configuration the bundled servers answer", async () => {
    const s = await serve({});
    expect(await chat(s, "bundled", "Wat zijn de regels voor het koelen van levensmiddelen?")).toContain("VW-KOEL-01");
  });

  it.each([
    [{ weather: { command: "x" } }, /unknown server "weather": the agents use inspection, regulation, history/],
    [{ regulation: { args: ["a"] } }, /"regulation"\.command must be the program to run/],
    [{ history: { command: "node", args: "a.mjs" } }, /"history"\.args must be a list of strings/],
    [{ inspection: { command: "node", env: { PORT: 8080 } } }, /"inspection"\.env must be an object of strings/],
    [[], /must be a JSON object/],
  ])("refuses %j with an error that says what to write", (config, message) => {
    const error = (() => {
      try {
        parseMcpConfig(config);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(TrellisError);
    expect((error as TrellisError).code).toBe("INVALID_ARGUMENT");
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('"command": "…", "args": ["…"], "env"');
  });

  it("INSPECTION_MCP_CONFIG that cannot be read or is not JSON is a clear error", () => {
    expect(() => mcpConfigFromEnv({ INSPECTION_MCP_CONFIG: "/nonexistent/mcp.json" })).toThrow(/cannot be read/);
    expect(() => mcpConfigFromEnv({ INSPECTION_MCP_CONFIG: "{ nope" })).toThrow(/is not JSON/);
    expect(mcpConfigFromEnv({})).toBeUndefined();
  });
});
