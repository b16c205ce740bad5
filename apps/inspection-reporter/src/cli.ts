#!/usr/bin/env node
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { openInspectionRuntime } from "./in-process.js";
import { createInspectionReporter } from "./inspection-reporter.js";
import type { TurnResult } from "./orchestrator/orchestrator.js";
import { startInspectionServer } from "./serve.js";
import { closeDefaultInspectionReporter } from "./server-entry.js";

const USAGE = `inspection-reporter — the Dutch food-safety inspection assistant of seed 004

  inspection-reporter serve [--port 8123] [--config trellis.json]
      Trellis server with the app under /apps/inspection-reporter/ (AG-UI: POST /ag-ui over SSE,
      ws://…/apps/inspection-reporter/ws), plus the Agent Server API.
  inspection-reporter chat [--thread id]       a conversation in the terminal
  inspection-reporter ask "bericht" [--thread id]   one message; prints the reply

Threads: INSPECTION_DB_PATH (default .trellis/inspection-reporter/threads.sqlite). Reports and settings:
INSPECTION_DATA_DIR. Model: offline Dutch rules unless INSPECTION_MODEL_PROVIDER or
TRELLIS_MODEL_PROVIDER is set. See the app's README.`;

function dbPath(): string {
  return resolve(process.env.INSPECTION_DB_PATH || ".trellis/inspection-reporter/threads.sqlite");
}

function show(turn: TurnResult): string {
  const tag = turn.status === "clarification" ? "vragen" : "antwoord";
  return `[${turn.currentAgent} · ${tag}]\n${turn.reply}`;
}

/**
 * Runs the CLI with `argv` (without `node` and the script); resolves to the exit code.
 *
 * @example
 * process.exitCode = await main(["ask", "Wat zijn de regels voor koeling?"]);
 */
export async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: "string" },
      config: { type: "string" },
      thread: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 1;
  }
  if (command === "serve") {
    const port =
      values.port !== undefined ? Number(values.port) : process.env.PORT ? Number(process.env.PORT) : undefined;
    const server = await startInspectionServer({
      ...(port !== undefined ? { port } : {}),
      ...(values.config ? { configPath: values.config } : {}),
    });
    console.log(`inspection-reporter listening on ${server.url} (AG-UI WebSocket ${server.wsUrl})`);
    const stop = () => {
      void server
        .close()
        .then(closeDefaultInspectionReporter)
        .then(() => process.exit(0));
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return await new Promise<number>(() => {});
  }
  if (command !== "chat" && command !== "ask") {
    console.error(`Unknown command "${command}".\n\n${USAGE}`);
    return 1;
  }
  // The same run path as `serve`: an in-process Trellis server on the same SQLite file.
  const app = await createInspectionReporter({ logger: { info: () => {}, warn: console.warn } });
  const runtime = await openInspectionRuntime({ dbPath: dbPath(), app }).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  const orchestrator = runtime.orchestrator;
  const threadId = values.thread ?? randomUUID();
  try {
    if (command === "ask") {
      const message = rest.join(" ").trim();
      if (!message) {
        console.error('ask needs a message: inspection-reporter ask "Wat zijn de regels voor koeling?"');
        return 1;
      }
      console.log(show(await orchestrator.processMessage(threadId, message, { user: "app", source: "cli" })));
      console.log(`\n(thread ${threadId}, model ${app.modelLabel})`);
      return 0;
    }
    console.log(`Thread ${threadId} · model ${app.modelLabel} · typ "exit" om te stoppen.`);
    const lines = createInterface({ input: process.stdin, output: process.stdout, prompt: "> " });
    lines.prompt();
    for await (const line of lines) {
      const text = line.trim();
      if (text === "exit" || text === "quit") break;
      if (text) console.log(show(await orchestrator.processMessage(threadId, text, { user: "app", source: "cli" })));
      lines.prompt();
    }
    lines.close();
    return 0;
  } finally {
    await runtime.close();
    await app.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
