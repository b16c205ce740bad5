#!/usr/bin/env node
/**
 * The terminal channel: runs a conversation with the same two pauses as Teams and Telegram, through a
 * Trellis server opened in this process on the data directory's SQLite file (the same run path as the
 * served webhooks: thread records, runs, the queue).
 *
 *   npm run twi -- "Írj TWI munkautasítást a raklap fóliázásáról."
 *   npm run twi -- --resume cli-20250301-101500      # continue a paused conversation
 *
 * Answers are read line by line from standard input, so a script can pipe them in.
 */
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { TEXT, viewText } from "./channels/view-text.js";
import { loadTwiConfig } from "./config.js";
import { createTwiApp } from "./create-twi-app.js";
import { DecisionError, type ReviewDecision } from "./decisions.js";
import type { ConversationView, TwiAssistant } from "./twi-assistant.js";

const USAGE = `Használat: twi-author [beállítások] "kérés"
  --resume <id>      egy félbehagyott beszélgetés folytatása
  --data-dir <dir>   adatkönyvtár (alapértelmezés: TWI_DATA_DIR vagy ./.twi-author)
  --user <id>        felhasználó (alapértelmezés: $USER)
  --tenant <id>      szervezet (alapértelmezés: TWI_TENANT_ID vagy "local")
  --id <id>          a beszélgetés azonosítója (alapértelmezés: időbélyeg)
  -h, --help`;

/** Reads answers one line at a time from a stream. */
function lineReader(input: NodeJS.ReadableStream, output: NodeJS.WritableStream) {
  const lines = createInterface({ input, terminal: false })[Symbol.asyncIterator]();
  return async (prompt: string): Promise<string | undefined> => {
    output.write(prompt);
    const next = await lines.next();
    return next.done ? undefined : String(next.value).trim();
  };
}

/**
 * Asks the person at the terminal for the decision a view waits for; `undefined` means "stop here
 * and leave the conversation paused".
 */
async function askDecision(
  view: ConversationView,
  ask: (prompt: string) => Promise<string | undefined>,
): Promise<ReviewDecision | undefined> {
  for (;;) {
    if (view.kind === "final_approval") {
      const answer = await ask(`\n${TEXT.finalApprove}? [i]gen / [k]ésőbb: `);
      if (answer === undefined || /^k/i.test(answer)) return undefined;
      if (/^(i|y)/i.test(answer)) return { action: "final_approved" };
      continue;
    }
    const answer = await ask(`\n[j]óváhagyás / [r] javítás kérése / [e]lutasítás / [k]ésőbb: `);
    if (answer === undefined || /^k/i.test(answer)) return undefined;
    if (/^(j|a)/i.test(answer)) return { action: "approved" };
    if (/^(e|x)/i.test(answer)) return { action: "rejected" };
    if (/^r/i.test(answer)) {
      const feedback = await ask(`${TEXT.feedbackPlaceholder}\n> `);
      if (feedback === undefined) return undefined;
      if (feedback !== "") return { action: "revision_requested", feedback };
    }
  }
}

/**
 * Runs one conversation to its end, or until the person stops at a pause.
 *
 * @example
 * await converse(assistant, view, ask, process.stdout);
 */
export async function converse(
  assistant: TwiAssistant,
  first: ConversationView,
  ask: (prompt: string) => Promise<string | undefined>,
  out: NodeJS.WritableStream,
): Promise<ConversationView> {
  let view = first;
  for (;;) {
    out.write(`\n${viewText(view)}\n`);
    if (view.kind !== "review" && view.kind !== "final_approval") return view;
    const decision = await askDecision(view, ask);
    if (!decision) {
      out.write(`\nA beszélgetés szünetel. Folytatás: npm run twi -- --resume ${view.conversationId}\n`);
      return view;
    }
    try {
      view = await assistant.decide(view.conversationId, decision, { pause: view.pauseId });
    } catch (error) {
      if (!(error instanceof DecisionError)) throw error;
      out.write(`${error.message}\n`);
    }
  }
}

/**
 * The CLI's entry: parses arguments, opens the app, runs the conversation.
 *
 * @example
 * await main(["Write a TWI for pallet wrapping"]);
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      resume: { type: "string" },
      "data-dir": { type: "string" },
      user: { type: "string" },
      tenant: { type: "string" },
      id: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const request = positionals.join(" ").trim();
  if (values.help || (!request && !values.resume)) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const config = loadTwiConfig({ ...env, ...(values["data-dir"] ? { TWI_DATA_DIR: values["data-dir"] } : {}) });
  const app = createTwiApp({ config, env });
  const ask = lineReader(process.stdin, process.stdout);
  try {
    process.stdout.write(
      `Modell: ${app.services.model.provider}/${app.services.model.model} · adatok: ${config.dataDir}\n`,
    );
    let view: ConversationView;
    if (values.resume) {
      view = await app.assistant.view(values.resume);
    } else {
      process.stdout.write(`${TEXT.working}\n`);
      const id = values.id ?? `cli-${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}`;
      view = await app.assistant.start({
        conversation_id: id,
        user_id: values.user ?? env.USER ?? "cli-user",
        tenant_id: values.tenant ?? config.defaultTenantId,
        channel: "cli",
        message: request,
      });
    }
    const last = await converse(app.assistant, view, ask, process.stdout);
    if (last.kind === "completed") {
      process.stdout.write(`PDF fájl: ${config.blobDir}/${last.pdfBlobName}\n`);
    }
    return 0;
  } finally {
    await app.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
