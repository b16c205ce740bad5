// Issue 24, finding 2: the MCP servers are supervised. Killing the inspection MCP child with SIGKILL
// used to leave every later request failing with "Not connected" while /health answered ok. Now the
// server process is restarted with backoff, a call made meanwhile waits for it, a call in flight when it
// dies is repeated (read-only and idempotent tools) or fails with a retryable error, and /health tells.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTool } from "@trellis/models";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createInspectionReporter } from "../inspection-reporter.js";
import { type McpServers, McpServerUnavailableError, startMcpServers } from "../mcp/mcp-servers.js";
import { createOfflineModels } from "../offline/offline-models.js";
import { silentLogger } from "../orchestrator/logger.js";
import { type InspectionServer, startInspectionServer } from "../serve.js";
import { closeDefaultInspectionReporter, useInspectionReporter } from "../server-entry.js";

const ASK = "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854";
const QUESTIONS =
  "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?";

interface Health {
  ok: boolean;
  mcp?: Record<string, { state: string; pid: number | null; restarts: number; lastExitAt?: string }>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Trellis server with the app, its MCP servers restarted by `mcpRestart`. */
async function serve(dir: string, mcpRestart?: { initialDelayMs: number }): Promise<InspectionServer> {
  const app = await createInspectionReporter({
    dataDir: join(dir, "data"),
    models: createOfflineModels(),
    logger: silentLogger,
    ...(mcpRestart ? { mcpRestart } : {}),
  });
  useInspectionReporter(app);
  return startInspectionServer({
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
}

async function health(server: InspectionServer): Promise<{ status: number; body: Health }> {
  const res = await fetch(`${server.url}/apps/inspection-reporter/health`);
  return { status: res.status, body: (await res.json()) as Health };
}

/** Asks /health until `done` holds (the exit and the restart are seen asynchronously). */
async function healthUntil(server: InspectionServer, done: (h: { status: number; body: Health }) => boolean) {
  for (;;) {
    const h = await health(server);
    if (done(h)) return h;
    await pause(20);
  }
}

async function chat(server: InspectionServer, threadId: string, message: string) {
  const res = await fetch(`${server.url}/apps/inspection-reporter/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ thread_id: threadId, message }),
  });
  return { status: res.status, body: (await res.json()) as { status: string; reply: string } };
}

function inspectionPid(h: { body: Health }): number {
  const pid = h.body.mcp?.inspection?.pid;
  if (typeof pid !== "number") throw new Error(`no inspection MCP pid in /health: ${JSON.stringify(h.body)}`);
  return pid;
}

describe("a killed MCP server under the Trellis server", () => {
  let dir: string;
  let server: InspectionServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "inspection-mcp-kill-"));
    vi.spyOn(console, "info").mockImplementation(() => {});
    server = await serve(dir);
  });
  afterAll(async () => {
    await server.close();
    await closeDefaultInspectionReporter();
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is restarted: the next report request gets its questions (not 'Not connected') and /health shows the new process", async () => {
    const before = await health(server);
    expect(before.status).toBe(200);
    expect(before.body.mcp?.inspection).toMatchObject({ state: "up", restarts: 0 });
    const killed = inspectionPid(before);
    process.kill(killed, "SIGKILL");

    // the very next request, without waiting for anything: its tool calls wait for the restart
    const turn = await chat(server, "kill-1", ASK);
    expect(turn.body.reply).not.toContain("Not connected");
    expect(turn.body).toMatchObject({ status: "clarification", reply: QUESTIONS });

    const after = await healthUntil(server, (h) => h.body.mcp?.inspection?.restarts === 1);
    expect(after.status).toBe(200);
    expect(after.body.ok).toBe(true);
    expect(after.body.mcp?.inspection).toMatchObject({ state: "up", restarts: 1 });
    expect(inspectionPid(after)).not.toBe(killed);
    expect(after.body.mcp?.inspection?.lastExitAt).toEqual(expect.any(String));
    expect(after.body.mcp?.regulation).toMatchObject({ state: "up", restarts: 0 });

    // killed again, mid-conversation: the answer to the questions still lands and the report is made
    process.kill(inspectionPid(after), "SIGKILL");
    const answered = await chat(server, "kill-1", "hoofdstraat 2, ja, nee");
    expect(answered.body.status).toBe("answered");
    expect(answered.body.reply).toContain("Het inspectierapport is klaar (oordeel: Voldoet)");
  });
});

describe("/health while an MCP server is down", () => {
  let dir: string;
  let server: InspectionServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "inspection-mcp-down-"));
    vi.spyOn(console, "info").mockImplementation(() => {});
    // a restart an hour away: the server stays down until the test restarts it
    server = await serve(dir, { initialDelayMs: 3_600_000 });
  });
  afterAll(async () => {
    await server.close();
    await closeDefaultInspectionReporter();
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 naming the server that is down, and 200 once it is back", async () => {
    const killed = inspectionPid(await health(server));
    process.kill(killed, "SIGKILL");
    const down = await healthUntil(server, (h) => h.status !== 200);
    expect(down.status).toBe(503);
    expect(down.body.ok).toBe(false);
    expect(down.body.mcp?.inspection).toMatchObject({ state: "restarting", pid: null, restarts: 0 });
    expect(down.body.mcp?.history).toMatchObject({ state: "up" });

    const { defaultInspectionReporter } = await import("../server-entry.js");
    await (await defaultInspectionReporter()).mcp.restart("inspection");
    const up = await health(server);
    expect(up.status).toBe(200);
    expect(up.body.mcp?.inspection).toMatchObject({ state: "up", restarts: 1 });
    expect(inspectionPid(up)).not.toBe(killed);
  });
});

describe("a tool call in flight when its MCP server is killed", () => {
  let dir: string;
  let mcp: McpServers;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "inspection-mcp-inflight-"));
    mcp = await startMcpServers({ dataDir: dir });
  });
  afterAll(async () => {
    await mcp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a tool call as the agents' tool node does, with the server frozen, then kills the server under it. */
  async function callWhileKilled(name: string, args: Record<string, unknown>) {
    const pid = mcp.status().inspection.pid as number;
    process.kill(pid, "SIGSTOP"); // the server reads nothing more: the call is certainly in flight
    const outcome = runTool(mcp.tools.inspection, { id: `call-${name}`, name, args });
    await pause(20);
    process.kill(pid, "SIGKILL");
    return { pid, outcome: await outcome };
  }

  it("of a read-only tool is repeated on the restarted server", async () => {
    const started = await runTool(mcp.tools.inspection, {
      id: "s1",
      name: "start_inspection_report",
      args: { company_name: "Restaurant Bella Rosa", kvk_number: "92251854" },
    });
    const reportId = (JSON.parse(started.message.content) as { report_id: string }).report_id;
    const { pid, outcome } = await callWhileKilled("verify_inspection_data", { report_id: reportId });
    expect(outcome.status).toBe("success");
    expect(JSON.parse(outcome.message.content)).toMatchObject({ report_id: reportId, completion_percentage: 40 });
    expect(mcp.status().inspection).toMatchObject({ state: "up", restarts: 1 });
    expect(mcp.status().inspection.pid).not.toBe(pid);
  });

  it("of a tool with side effects fails with a clear retryable error, and the next call works", async () => {
    const { outcome } = await callWhileKilled("start_inspection_report", { company_name: "Eetcafe De Hoek" });
    expect(outcome.status).toBe("error");
    const cause = (outcome as { cause?: unknown }).cause;
    expect(cause).toBeInstanceOf(McpServerUnavailableError);
    expect(cause).toMatchObject({ retryable: true, server: "inspection", code: "MCP_SERVER_UNAVAILABLE" });
    expect(outcome.message.content).toContain(
      'MCP server "inspection" exited while start_inspection_report was running',
    );
    expect(outcome.message.content).toContain("Retry the call.");

    const again = await runTool(mcp.tools.inspection, {
      id: "s2",
      name: "start_inspection_report",
      args: { company_name: "Eetcafe De Hoek" },
    });
    expect(again.status).toBe("success");
    expect(mcp.status().inspection.restarts).toBe(2);
  });
});
