// Issue 24, finding 1: a server killed inside the first turn of a report. After the restart the server
// finishes that turn, which pauses at a clarification; the inspector's next message must answer it
// (the graph's paused-input policy `resume`), not start over at the general agent.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { KILL_POINT } from "./crash-app.js";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const children: ChildProcess[] = [];
let dir: string | undefined;

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

interface Child {
  child: ChildProcess;
  url: string;
  /** Resolves once the child printed `text`. */
  printed(text: string): Promise<void>;
}

/** `inspection-reporter serve --config <config>` from the TS sources; resolves once it listens. */
function startServerProcess(config: string, env: Record<string, string>): Promise<Child> {
  const child = spawn(
    process.execPath,
    ["--conditions=@trellis/source", "--import", "tsx", "src/cli.ts", "serve", "--port", "0", "--config", config],
    {
      cwd: APP_DIR,
      env: { ...process.env, ...env, INSPECTION_MODEL_PROVIDER: "", TRELLIS_MODEL_PROVIDER: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  let output = "";
  const waiting: Array<{ text: string; done: () => void }> = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const w of waiting.splice(0)) {
      if (output.includes(w.text)) w.done();
      else waiting.push(w);
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const printed = (text: string) =>
    new Promise<void>((done) => {
      if (output.includes(text)) done();
      else waiting.push({ text, done });
    });
  return new Promise((resolveStart, reject) => {
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${output}`)));
    void printed("AG-UI WebSocket").then(() => {
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1] as string;
      resolveStart({ child, url, printed });
    });
  });
}

async function chat(url: string, threadId: string, message: string): Promise<Response> {
  return fetch(`${url}/apps/inspection-reporter/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ thread_id: threadId, message }),
  });
}

describe("a server killed inside the first turn of a report (issue 24, finding 1)", () => {
  it.each(["general-agent", "reporting-agent"])(
    "killed while the %s works: after the restart, the next message answers the clarification the turn reached",
    async (agent) => {
      dir = mkdtempSync(join(tmpdir(), "inspection-crash-"));
      const config = join(dir, "trellis.json");
      writeFileSync(
        config,
        JSON.stringify({
          graphs: {
            "inspection-reporter": {
              module: join(APP_DIR, "src/test/crash-app.ts"),
              graph: "buildGraph",
              routes: "createRoutes",
            },
          },
          saver: { kind: "sqlite", path: join(dir, "threads.sqlite") },
        }),
      );
      const env = { INSPECTION_DATA_DIR: join(dir, "data") };
      const thread = `crash-${agent}`;

      const first = await startServerProcess(config, { ...env, INSPECTION_TEST_HANG: agent });
      const cut = chat(first.url, thread, "Maak een inspectierapport voor Snackbar 't Hoekje, KVK 87654321").catch(
        () => undefined,
      );
      await first.printed(`${KILL_POINT} ${agent}`);
      first.child.kill("SIGKILL");
      await new Promise((r) => first.child.once("exit", r));
      await cut;

      const second = await startServerProcess(config, env);
      const res = await chat(second.url, thread, "Dorpsplein 14, ja, nee");
      expect(res.status).toBe(200);
      const turn = (await res.json()) as { reply: string; status: string; current_agent: string; resumed: boolean };
      expect(turn.reply).not.toContain("Ik ben de inspectie-assistent.");
      expect(turn).toMatchObject({ status: "answered", current_agent: "reporting-agent", resumed: true });
      expect(turn.reply).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
      expect(turn.reply).toContain("# Inspectierapport Snackbar 't Hoekje");
      expect(turn.reply).toContain("- Adres: Dorpsplein 14");

      // The thread, as the Agent Server API shows it: finished, nothing pending, the answer in the paused tool call.
      const state = (await (await fetch(`${second.url}/threads/${thread}/state`)).json()) as {
        next: string[];
        interrupts: unknown[];
        values: { messages: Array<{ type: string; name?: string; content: string }> };
      };
      expect(state.next).toEqual([]);
      expect(state.interrupts).toEqual([]);
      const answer = state.values.messages.find((m) => m.type === "tool" && m.name === "request_clarification");
      expect(answer?.content).toBe("Dorpsplein 14, ja, nee");
    },
    90_000,
  );
});
