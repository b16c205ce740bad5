/**
 * The prompts of the two LLM calls (intent, generate), and the reader of the generate prompt's
 * blocks that the offline model uses. A real model gets exactly the same text.
 */
import type { Message } from "@trellis/models";
import { INTENTS, type Intent } from "./state.js";

/**
 * First line of the intent system prompt; the offline model recognises the call by it.
 *
 * @example
 * messages[0].content.startsWith(INTENT_PROMPT_ID);
 */
export const INTENT_PROMPT_ID = "Feladat: szándékfelismerés (TWI asszisztens).";

/**
 * First line of the generate system prompt.
 *
 * @example
 * messages[0].content.startsWith(GENERATE_PROMPT_ID);
 */
export const GENERATE_PROMPT_ID = "Feladat: TWI munkautasítás írása.";

/**
 * Intent call settings, as the seed fixes them.
 *
 * @example
 * model.invoke(messages, INTENT_CALL);
 */
export const INTENT_CALL = { temperature: 0.1, maxTokens: 20 } as const;

/**
 * Generate call settings, as the seed fixes them.
 *
 * @example
 * model.invoke(messages, GENERATE_CALL);
 */
export const GENERATE_CALL = { temperature: 0.3, maxTokens: 4000 } as const;

const INTENT_SYSTEM = [
  INTENT_PROMPT_ID,
  "Egy gyártóüzemi asszisztens kap üzeneteket. Sorold be az üzenetet pontosan egy kategóriába:",
  "- generate_twi: új TWI munkautasítást (job instruction) kér egy munkafolyamatról",
  "- edit_twi: egy meglévő munkautasítás módosítását, javítását kéri",
  "- question: kérdést tesz fel (a TWI-ről, egy munkafolyamatról)",
  "- unknown: minden más (köszönés, értelmetlen vagy a feladathoz nem tartozó üzenet)",
  `Csak a kategória nevét válaszold, semmi mást: ${INTENTS.join(" | ")}.`,
].join("\n");

/**
 * The messages of the intent call.
 *
 * @example
 * await model.invoke(intentMessages("Írj TWI-t a csomagolásról"), INTENT_CALL);
 */
export function intentMessages(message: string): Message[] {
  return [
    { id: "intent-system", role: "system", content: INTENT_SYSTEM },
    { id: "intent-user", role: "user", content: message },
  ];
}

/**
 * Reads the intent from a model's reply: the first of the four names it contains, else `unknown`.
 *
 * @example
 * parseIntent(" generate_twi\n"); // "generate_twi"
 * parseIntent("I think this is a question."); // "question"
 */
export function parseIntent(reply: string): Intent {
  const text = reply.toLowerCase();
  let best: { intent: Intent; at: number } | undefined;
  for (const intent of INTENTS) {
    const at = text.indexOf(intent);
    if (at >= 0 && (best === undefined || at < best.at)) best = { intent, at };
  }
  return best?.intent ?? "unknown";
}

const GENERATE_SYSTEM = [
  GENERATE_PROMPT_ID,
  "Gyártóüzemi TWI (Training Within Industry) munkautasításokat írsz magyarul, az alábbi hat részben,",
  "pontosan ezekkel a címsorokkal és ebben a sorrendben:",
  "1. CÍM",
  "2. CÉL",
  "3. SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK (felsorolás, soronként „- ”)",
  "4. BIZTONSÁGI ELŐÍRÁSOK (felsorolás, soronként „- ”)",
  "5. LÉPÉSEK — minden lépés: „N. lépés: <fő lépés>”, alatta „Kulcspontok:” felsorolással, majd „Indoklás: …”",
  "6. MINŐSÉGI ELLENŐRZÉS (felsorolás, soronként „- ”)",
  "Szabály: ha a kérésből hiányzik a munkautasításhoz szükséges információ (a feladat vagy a lépései),",
  "ne találj ki részleteket: a munkautasítás helyett tedd fel a pontosító kérdéseidet, számozott listában,",
  "„KIEGÉSZÍTŐ INFORMÁCIÓ SZÜKSÉGES” első sorral.",
  "Ha a felhasználó kérdést tett fel, röviden, magyarul válaszolj rá.",
  "Ha előző vázlatot és felülvizsgálói visszajelzést kapsz, a vázlatot a visszajelzés szerint javítsd, a teljes",
  "munkautasítást add vissza.",
  "Ne írd a válaszba az „AI által generált tartalom” jelölést: azt a rendszer teszi hozzá.",
].join("\n");

/**
 * What the generate prompt carries. Blocks are named in Hungarian and fenced with `<<<` and `>>>`.
 *
 * @example
 * const input: GeneratePromptInput = { mode: "new", request: "…", previousDraft: "…", feedback: "…", revision: 1 };
 */
export interface GeneratePromptInput {
  /** From the intent: `new` (generate_twi), `edit` (edit_twi), `question`. A revision keeps the mode and adds `feedback`. */
  mode: "new" | "edit" | "question";
  request: string;
  processedInput?: Record<string, unknown> | null;
  existingInstruction?: string | null;
  previousDraft?: string | null;
  feedback?: string | null;
  /** Revision number of `previousDraft`. */
  revision?: number;
}

/** Block names of the generate prompt. */
const BLOCKS = {
  mode: "MÓD",
  request: "FELHASZNÁLÓI KÉRÉS",
  processed: "FELDOLGOZOTT BEMENET",
  existing: "MEGLÉVŐ MUNKAUTASÍTÁS",
  previous: "ELŐZŐ VÁZLAT",
  feedback: "FELÜLVIZSGÁLÓI VISSZAJELZÉS",
} as const;

function block(name: string, body: string): string {
  return `${name}:\n<<<\n${body.trim()}\n>>>`;
}

/**
 * The messages of the generate call. A revision carries the previous draft and the feedback.
 *
 * @example
 * generateMessages({ mode: "new", request: "Write a TWI for pallet wrapping" });
 */
export function generateMessages(input: GeneratePromptInput): Message[] {
  const parts = [block(BLOCKS.mode, input.mode), block(BLOCKS.request, input.request)];
  if (input.processedInput) parts.push(block(BLOCKS.processed, JSON.stringify(input.processedInput)));
  if (input.existingInstruction) parts.push(block(BLOCKS.existing, input.existingInstruction));
  if (input.previousDraft) {
    parts.push(block(`${BLOCKS.previous} (${input.revision ?? 0}. revízió)`, input.previousDraft));
  }
  if (input.feedback) parts.push(block(BLOCKS.feedback, input.feedback));
  if (input.feedback) {
    parts.push("Javítsd a vázlatot a visszajelzés szerint, és add vissza a teljes munkautasítást.");
  }
  return [
    { id: "generate-system", role: "system", content: GENERATE_SYSTEM },
    { id: "generate-user", role: "user", content: parts.join("\n\n") },
  ];
}

/**
 * Reads the blocks of a generate prompt back (the offline model's view of the call).
 *
 * @example
 * const blocks = readGeneratePrompt(messages.at(-1).content);
 * blocks.feedback; // "Add a safety rule: …"
 */
export function readGeneratePrompt(text: string): GeneratePromptInput {
  const read = (name: string): string | null => {
    const at = text.indexOf(`${name}`);
    if (at < 0) return null;
    const open = text.indexOf("<<<\n", at);
    const close = text.indexOf("\n>>>", open);
    return open < 0 || close < 0 ? null : text.slice(open + 4, close);
  };
  const mode = read(`${BLOCKS.mode}:`);
  const processed = read(`${BLOCKS.processed}:`);
  // "ELŐZŐ VÁZLAT (2. revízió):" — the revision of the previous draft
  const revision = new RegExp(`${BLOCKS.previous} \\((\\d+)\\. revízió\\):`).exec(text)?.[1];
  return {
    ...(revision !== undefined ? { revision: Number(revision) } : {}),
    mode: mode === "edit" || mode === "question" ? mode : "new",
    request: read(`${BLOCKS.request}:`) ?? "",
    processedInput: processed ? (JSON.parse(processed) as Record<string, unknown>) : null,
    existingInstruction: read(`${BLOCKS.existing}:`),
    previousDraft: read(BLOCKS.previous),
    feedback: read(`${BLOCKS.feedback}:`),
  };
}
