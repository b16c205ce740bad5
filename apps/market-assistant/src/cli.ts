#!/usr/bin/env node
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { chat } from "./chat-service.js";
import { createChatRoutes } from "./http/chat-routes.js";
import { createMarketAssistant } from "./market-assistant.js";

const USAGE = `market-assistant — the stock-exchange assistant of seed 003

  market-assistant serve [--port 8124]          HTTP: POST /chat, GET /threads/:id/messages, GET /health
  market-assistant ask "question" [--thread id] one turn on a thread, printed with its metadata

Transcripts: Redis with REDIS_URL, else the embedded SQLite file. Model: offline unless
TRELLIS_MODEL_PROVIDER is set (openai → gpt-4o-mini). See the app's README.`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { port: { type: "string" }, thread: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 1;
  }
  const assistant = await createMarketAssistant();
  const where = `transcripts in ${assistant.store.kind}, company graph in ${assistant.database.dialect}, model ${assistant.model.provider}/${assistant.model.model}`;
  if (command === "serve") {
    const port = values.port ? Number(values.port) : assistant.config.port;
    const app = createChatRoutes(assistant);
    const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, (info) => {
      console.log(`market-assistant listening on http://127.0.0.1:${info.port} (${where})`);
    });
    const stop = () => {
      server.close();
      void assistant.close().then(() => process.exit(0));
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return await new Promise<number>(() => {});
  }
  if (command === "ask") {
    const message = rest.join(" ").trim();
    if (!message) {
      console.error('ask needs a question: market-assistant ask "Tell me about John Keells"');
      await assistant.close();
      return 1;
    }
    const threadId = values.thread ?? randomUUID();
    const reply = await chat(assistant, { thread_id: threadId, message });
    console.log(reply.content);
    console.log(`\n[thread ${threadId} · ${where} · ${JSON.stringify(reply.metadata)}]`);
    await assistant.close();
    return 0;
  }
  console.error(`Unknown command "${command}".\n\n${USAGE}`);
  await assistant.close();
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
