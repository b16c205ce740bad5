// A thread paused at a clarification survives a restart: a new app instance (new MCP server processes,
// a new in-process server) on the same SQLite file in this process, and a killed server process replaced
// by a new one.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openInspectionRuntime } from "../in-process.js";
import { createInspectionReporter } from "../inspection-reporter.js";
import { silentLogger } from "../orchestrator/logger.js";
import { WsFrontend } from "./ag-ui-client.js";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const children: ChildProcess[] = [];
let dir: string | undefined;

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("restart while paused at a clarification", () => {
  it("a new graph instance on the same SQLite file resumes the reporting agent", async () => {
    dir = mkdtempSync(join(tmpdir(), "inspection-restart-"));
    const options = { dataDir: join(dir, "data"), env: {}, logger: silentLogger };
    const dbPath = join(dir, "threads.sqlite");

    const first = await createInspectionReporter(options);
    const firstRuntime = await openInspectionRuntime({ dbPath, app: first });
    const asked = await firstRuntime.orchestrator.processMessage(
      "r1",
      "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854",
    );
    expect(asked.status).toBe("clarification");
    await firstRuntime.close();
    await first.close();

    const second = await createInspectionReporter(options);
    const secondRuntime = await openInspectionRuntime({ dbPath, app: second });
    try {
      const paused = await secondRuntime.orchestrator.getThread("r1");
      expect(paused.currentAgent).toBe("reporting-agent");
      expect(paused.clarification?.request.display_text).toBe(asked.reply);
      const done = await secondRuntime.orchestrator.processMessage("r1", "hoofdstraat 2, ja, nee");
      expect(done.resumed).toBe(true);
      expect(done.reply).toContain("# Inspectierapport Restaurant Bella Rosa");
      // The new general agent was never asked: the reply went straight into the paused tool call.
      expect(second.models["general-agent"]).toHaveProperty("calls", []);
    } finally {
      await secondRuntime.close();
      await second.close();
    }
  });

  it("a killed server process: a new process on the same files takes the answer over the WebSocket", async () => {
    dir = mkdtempSync(join(tmpdir(), "inspection-restart-proc-"));
    const env = {
      INSPECTION_DB_PATH: join(dir, "threads.sqlite"),
      INSPECTION_DATA_DIR: join(dir, "data"),
    };
    const first = await startServerProcess(env);
    const frontend = await WsFrontend.connect(first.wsUrl, "proc-thread");
    const asked = await frontend.say("Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854");
    expect(asked.texts.at(-1)).toBe(
      "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?",
    );
    frontend.close();
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));

    const second = await startServerProcess(env);
    const again = await WsFrontend.connect(second.wsUrl, "proc-thread");
    again.messages.push(...frontend.messages);
    const done = await again.say("hoofdstraat 2, ja, nee");
    expect(done.finished).toMatchObject({
      result: { current_agent: "reporting-agent", awaiting_clarification: false },
    });
    expect(done.texts.at(-1)).toContain("# Inspectierapport Restaurant Bella Rosa");
    expect(second.output()).toContain("Resuming interrupted graph with: hoofdstraat 2, ja, nee");
    again.close();
  }, 60_000);
});

/** Runs `inspection-reporter serve --port 0` from the TS sources; resolves once it listens. */
function startServerProcess(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; wsUrl: string; output: () => string }> {
  const child = spawn(
    process.execPath,
    ["--conditions=@trellis/source", "--import", "tsx", "src/cli.ts", "serve", "--port", "0"],
    {
      cwd: APP_DIR,
      env: { ...process.env, ...env, INSPECTION_MODEL_PROVIDER: "", TRELLIS_MODEL_PROVIDER: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  let output = "";
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const wsUrl = /AG-UI WebSocket (ws:\/\/\S+)\)/.exec(output)?.[1];
      if (wsUrl) {
        clearTimeout(timer);
        resolveStart({ child, wsUrl, output: () => output });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${output}`)));
  });
}
