/**
 * The offline intent classifier: keyword rules over Hungarian and English wording. A real model gets
 * the same prompt and answers with the same four names.
 */
import type { Intent } from "../state.js";

/** A whole-word test that understands accented letters (JS `\b` does not). */
function hasWord(text: string, words: readonly string[]): boolean {
  return words.some((w) => new RegExp(`(?<![\\p{L}\\p{N}])${w}(?![\\p{L}\\p{N}])`, "iu").test(text));
}

/** A word that starts with one of the stems (Hungarian suffixes: "munkautasítást", "TWI-t"). */
function hasStem(text: string, stems: readonly string[]): boolean {
  return stems.some((s) => new RegExp(`(?<![\\p{L}\\p{N}])${s}`, "iu").test(text));
}

/** What the instruction is called. */
const DOCUMENT_STEMS = [
  "twi",
  "munkautasítás",
  "munkautasitas",
  "utasítás",
  "betanít",
  "útmutató",
  "oktatóanyag",
  "munkaleírás",
  "leírás",
  "instrukció",
  "eljárásrend",
  "job instruction",
  "training",
  "guide",
  "procedure",
  "work instruction",
  "instruction",
  "sop",
];
/** Verbs asking for a new document. */
const CREATE_WORDS = [
  "írj",
  "írjon",
  "írd",
  "készíts",
  "készítsen",
  "készítsd",
  "generálj",
  "generáljon",
  "szerkessz",
  "csinálj",
  "írni",
  "készíteni",
  "megírnád",
  "megírná",
  "elkészítenéd",
  "kérek",
  "kérnék",
  "szeretnék",
  "kell",
  "kellene",
  "kéne",
  "szükség",
  "szükségem",
  "legyen",
  "write",
  "create",
  "generate",
  "draft",
  "make",
  "prepare",
  "need",
  "want",
  "put together",
  "set up",
  "would like",
];

/** Words of messages that carry no request at all: greetings, thanks, a test. */
const SMALL_TALK = new Set(
  (
    "szia sziasztok helló hello hali hi hey jó napot reggelt estét kívánok köszönöm köszi kösz üdv üdvözlöm " +
    "thanks thank you ok oké okay teszt test good morning szépen nagyon viszlát viszontlátásra üdvözlettel minden is"
  ).split(" "),
);

/** True when every word of the message is small talk ("Szia, jó reggelt!"), or it has no words. */
function isSmallTalk(text: string): boolean {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  return words.every((w) => SMALL_TALK.has(w));
}

/** Verbs asking to change an existing document. */
const EDIT_STEMS = [
  "módosít",
  "modosit",
  "szerkeszd",
  "szerkesztsd",
  "javítsd",
  "javítsa",
  "írd át",
  "átír",
  "frissítsd",
  "frissítse",
  "egészítsd ki",
  "edit",
  "modify",
  "update",
  "revise",
  "rewrite",
  "change",
  "amend",
];
/** Words that open a question asking for an explanation rather than a document. */
const EXPLANATORY_WORDS = [
  "mi",
  "mit",
  "mik",
  "miért",
  "hogyan",
  "hogy kell",
  "mikor",
  "hány",
  "mennyi",
  "melyik",
  "milyen",
  "what",
  "why",
  "how",
  "when",
  "which",
  "who",
];
/** Other words that open a question. */
const QUESTION_WORDS = ["kell", "lehet", "is", "are", "can", "could", "should", "does", "do"];

/**
 * Classifies a message into one of the four intents, deterministically.
 *
 * - `edit_twi`: an edit verb and a word for the instruction ("Módosítsd a meglévő TWI-t…", "Edit this work instruction");
 * - `generate_twi`: a request verb and a word for the instruction, or a message that lists steps;
 * - `question`: a question mark, or a message that opens with a question word;
 * - `unknown`: greetings, thanks, noise — a message with no job in it;
 * - anything else describes a job in its own words (no document word, no verb we list): `generate_twi`,
 *   so the writer drafts from what it says or asks one question about it, never a dead end.
 *
 * @example
 * classifyOffline("Írj TWI munkautasítást a raklap fóliázásáról"); // "generate_twi"
 * classifyOffline("Mi a kulcspont?"); // "question"
 * classifyOffline("Szia!"); // "unknown"
 */
export function classifyOffline(message: string): Intent {
  const text = message.trim();
  if (text === "") return "unknown";
  const firstLine = text.split(/\r?\n/)[0] ?? "";
  const mentionsDocument = hasStem(text, DOCUMENT_STEMS);
  if (mentionsDocument && hasStem(firstLine, EDIT_STEMS)) return "edit_twi";
  const explanatory = new RegExp(`^(?:${EXPLANATORY_WORDS.join("|")})(?![\\p{L}])`, "iu").test(firstLine);
  if (mentionsDocument && hasWord(text, CREATE_WORDS) && !explanatory) return "generate_twi";
  if (listsSteps(text) && !explanatory && !/\?\s*$/.test(firstLine)) return "generate_twi";
  const opensWithQuestion = new RegExp(`^(?:${QUESTION_WORDS.join("|")})(?![\\p{L}])`, "iu").test(firstLine);
  if (text.includes("?") || explanatory || opensWithQuestion) return "question";
  if (isSmallTalk(text)) return "unknown";
  return "generate_twi";
}

/**
 * Whether a message spells out steps: a "Lépések:"/"Steps:" label, or two or more numbered lines.
 *
 * @example
 * listsSteps("Steps: 1. open 2. close"); // true
 */
export function listsSteps(text: string): boolean {
  if (/(?:lépések|steps)\s*:/i.test(text)) return true;
  return (text.match(/(?:^|\s)\d+\s*[.)]\s+\p{L}/gu) ?? []).length >= 2;
}
