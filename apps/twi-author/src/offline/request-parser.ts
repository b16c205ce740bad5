/**
 * Reads a free-text request (Hungarian or English) into the facts a TWI draft needs: the job, its
 * steps with key points and reasons, tools, safety rules, goal and checks. Only what the text says:
 * nothing is made up here.
 */
import type { TwiStep } from "../twi-document.js";

/**
 * What a request says.
 *
 * @example
 * parseRequest("Write a TWI for X. Steps: 1. a 2. b").steps.length; // 2
 */
export interface RequestFacts {
  language: "hu" | "en";
  /** The job, from the opening sentence ("…a raklap fóliázásáról", "…for pallet wrapping"). */
  task: string | null;
  title: string | null;
  goal: string | null;
  steps: TwiStep[];
  materials: string[];
  safety: string[];
  qualityChecks: string[];
}

const HU_HINTS = /[őűáéíóöüú]|(?<!\p{L})(?:a|az|és|egy|hogy|meg|írj|készíts|lépés\p{L}*)(?!\p{L})/giu;
const EN_HINTS = /(?<!\p{L})(?:the|and|of|to|with|for|write|create|steps?|then|please)(?!\p{L})/giu;

/**
 * Guesses whether a text is Hungarian or English.
 *
 * @example
 * detectLanguage("Write a TWI for pallet wrapping"); // "en"
 */
export function detectLanguage(text: string): "hu" | "en" {
  const hu = text.match(HU_HINTS)?.length ?? 0;
  const en = text.match(EN_HINTS)?.length ?? 0;
  return en > hu ? "en" : "hu";
}

type LabelKey = "steps" | "materials" | "safety" | "goal" | "qualityChecks" | "title";

const LABELS: ReadonlyArray<[LabelKey, string]> = [
  [
    "materials",
    "szükséges anyagok és eszközök|anyagok és eszközök|eszközök|anyagok|szerszámok|tools|materials|equipment",
  ],
  ["safety", "biztonsági előírások|biztonság|munkavédelem|safety|ppe"],
  ["qualityChecks", "minőségi ellenőrzés|ellenőrzés|quality checks?|quality|checks?"],
  ["steps", "lépések|steps"],
  ["goal", "cél|goal|purpose"],
  ["title", "cím|title"],
];

const LABEL_RE = new RegExp(`(?<![\\p{L}])(${LABELS.map(([, words]) => words).join("|")})\\s*:`, "giu");

function labelKey(word: string): LabelKey {
  const lower = word.toLowerCase();
  for (const [key, words] of LABELS) if (words.split("|").includes(lower)) return key;
  return "steps";
}

/** Splits a request into the text before the first label and the labelled blocks. */
function splitLabels(text: string): { intro: string; blocks: Array<[LabelKey, string]> } {
  const found = [...text.matchAll(LABEL_RE)];
  if (found.length === 0) return { intro: text, blocks: [] };
  const blocks: Array<[LabelKey, string]> = [];
  found.forEach((m, i) => {
    const start = (m.index ?? 0) + m[0].length;
    const end = found[i + 1]?.index ?? text.length;
    blocks.push([labelKey(m[1] ?? ""), text.slice(start, end).trim()]);
  });
  return { intro: text.slice(0, found[0]?.index ?? 0), blocks };
}

/** Splits an enumeration: numbered items, bullets, lines, or sequence words ("majd", "then"). */
export function splitItems(text: string): string[] {
  const numbered = text.split(/(?:^|\s)\d{1,2}\s*[.)]\s+(?=\p{L})/u).map((s) => s.trim());
  if (numbered.filter(Boolean).length >= 2 || /^\s*1\s*[.)]/.test(text)) return clean(numbered);
  const lines = text.split(/\r?\n\s*(?:[-•*]\s*)?/);
  if (lines.filter((l) => l.trim()).length >= 2) return clean(lines.map((l) => l.replace(/^[-•*]\s*/, "")));
  const sequenced = text.split(
    /\s*(?:;|,?\s+(?:majd|ezután|azután|utána|végül|then|after that|next|finally)\s+|\.\s+(?:majd|ezután|végül|then|next|finally)\s+)/iu,
  );
  if (sequenced.length >= 2) return clean(sequenced);
  return clean(text.split(/\.\s+|,\s+/));
}

function clean(items: string[]): string[] {
  return items
    .map((s) =>
      s
        .trim()
        .replace(/^[-•*]\s*/, "")
        .replace(/[.;,]+$/, "")
        .trim(),
    )
    .filter((s) => s !== "");
}

/**
 * Capitalises the first letter and ends the sentence with a full stop.
 *
 * @example
 * sentence("kézzel húzza meg"); // "Kézzel húzza meg."
 */
export function sentence(text: string): string {
  const t = text.trim().replace(/[.;,]+$/, "");
  return t === "" ? t : `${t.charAt(0).toUpperCase()}${t.slice(1)}.`;
}

const RATIONALE_SPLIT =
  /\s*(?:,\s*)?(?<![\p{L}])(mert|azért, hogy|hogy ne|különben|because|so that|so the|otherwise)(?![\p{L}])\s*/iu;
const KEY_POINT_MARKERS =
  /\s*(?:,\s*)?(?<![\p{L}])(?:ügyelve arra, hogy|ügyeljen arra, hogy|ügyelj arra, hogy|figyelve arra, hogy|kulcspont(?:ok)?:|key points?:|making sure(?: that)?|make sure(?: that)?|ensuring(?: that)?)(?![\p{L}])\s*/iu;

/**
 * Reads one step: the main action, key points (in parentheses or after "ügyelve arra, hogy", "make
 * sure", "kulcspont:") and the reason (after "mert", "because", "so that", "különben").
 *
 * @example
 * parseStep("Húzza meg a csavart kattanásig (egyenletesen), mert a túlhúzás elszakítja a menetet");
 * // { action: "Húzza meg a csavart kattanásig.", keyPoints: ["egyenletesen"], rationale: "A túlhúzás elszakítja a menetet." }
 */
export function parseStep(text: string): TwiStep {
  let rest = text.trim();
  let rationale = "";
  const why = RATIONALE_SPLIT.exec(rest);
  if (why && why.index > 0) {
    const marker = (why[1] ?? "").toLowerCase();
    const reason = rest.slice(why.index + why[0].length);
    rationale = marker === "hogy ne" ? `Hogy ne ${reason}` : marker === "különben" ? `Különben ${reason}` : reason;
    rationale = marker === "otherwise" ? `Otherwise ${reason}` : rationale;
    rest = rest.slice(0, why.index);
  }
  const keyPoints: string[] = [];
  rest = rest.replace(/\s*\(([^)]*)\)/g, (_m, inner: string) => {
    keyPoints.push(...clean(inner.split(/[;,]/)));
    return "";
  });
  const marked = KEY_POINT_MARKERS.exec(rest);
  if (marked && marked.index > 0) {
    keyPoints.push(...clean(rest.slice(marked.index + marked[0].length).split(/;|\s+és\s+|\s+and\s+/)));
    rest = rest.slice(0, marked.index);
  }
  return { action: sentence(rest), keyPoints, rationale: rationale ? sentence(rationale) : "" };
}

const REQUEST_OPENERS = [
  /^(?:kérlek,?\s*|kérem,?\s*)?(?:írj|írjon|írd meg|készíts|készítsen|készítsd el|generálj|generáljon|szerkessz|csinálj|kérek|kérnék|szeretnék)(?:\s+(?:nekem|nekünk|egy|egy új|új))*\s*/iu,
  /^(?:please\s+)?(?:could you\s+|can you\s+)?(?:write|create|generate|draft|make|prepare|i need)(?:\s+(?:me|us))?(?:\s+(?:a|an|the|new))*\s*/iu,
];
const DOCUMENT_WORDS =
  /^(?:twi[-\s]?(?:t|munkautasítást|utasítást|betanítási utasítást)?|munkautasítást|betanítási utasítást|utasítást|twi|job instructions?|work instructions?|instructions?|sop)(?:\s+(?:job|work)\s+instructions?)?\s*(?:(?:for|on|about|covering|to)\s+)?/iu;

/**
 * Picks the job out of the opening sentence: "Írj TWI-t a raklap fóliázásáról" → "a raklap
 * fóliázásáról"; "Write a TWI for pallet wrapping" → "pallet wrapping". `null` when there is none.
 *
 * @example
 * extractTask("Write a TWI for pallet wrapping."); // "pallet wrapping"
 */
export function extractTask(intro: string): string | null {
  const first = (intro.split(/(?<=[.!?])\s+|\r?\n/)[0] ?? "").trim();
  let rest = first;
  for (const opener of REQUEST_OPENERS) rest = rest.replace(opener, "");
  const withoutDoc = rest.replace(DOCUMENT_WORDS, "");
  if (withoutDoc === rest && rest === first) {
    // No request wording at all: the sentence itself may name the job only if it is short.
    if (rest.split(/\s+/).length > 12) return null;
  }
  const task = withoutDoc.replace(/[.!?:]+$/, "").trim();
  if (task === "" || /^(?:twi|egy|a|az|valamit|something)$/i.test(task)) return null;
  return task;
}

/**
 * Reads a request into {@link RequestFacts}.
 *
 * @example
 * parseRequest("Írj TWI-t a csomagolásról. Lépések: 1. Hajtsa össze a dobozt 2. Tegye bele a terméket");
 */
export function parseRequest(text: string): RequestFacts {
  const { intro, blocks } = splitLabels(text.trim());
  const facts: RequestFacts = {
    language: detectLanguage(text),
    task: extractTask(intro),
    title: null,
    goal: null,
    steps: [],
    materials: [],
    safety: [],
    qualityChecks: [],
  };
  for (const [key, body] of blocks) {
    if (key === "steps") facts.steps.push(...splitItems(body).map(parseStep));
    else if (key === "title") facts.title = body.replace(/[.]+$/, "").trim() || null;
    else if (key === "goal") facts.goal = sentence(body);
    else if (key === "materials") facts.materials.push(...splitItems(listPart(body)).map(sentence));
    else facts[key].push(...splitRules(body).map(sentence));
  }
  if (facts.steps.length === 0) {
    // Steps written straight into the request: "…: 1. … 2. …", or sentences joined by "majd"/"then".
    const afterFirst = intro.replace(/^[^.!?\n:]*[.!?:\n]\s*/, "");
    const candidates = /\d\s*[.)]\s+\p{L}/u.test(intro)
      ? splitItems(intro.slice(intro.search(/\d\s*[.)]\s+\p{L}/u)))
      : [];
    const sequenced = candidates.length >= 2 ? candidates : afterFirst ? splitSequence(afterFirst) : [];
    if (sequenced.length >= 2) facts.steps.push(...sequenced.map(parseStep));
  }
  for (const [re, rule] of PPE) {
    if (re.test(text) && !facts.safety.some((item) => re.test(item))) facts.safety.push(rule);
  }
  return facts;
}

/** Rules are sentences: split on lines, semicolons and full stops, never on commas. */
function splitRules(text: string): string[] {
  return clean(text.split(/\r?\n\s*(?:[-•*]\s*)?|;\s*|\.\s+(?=\p{Lu})/u));
}

/** A list written on one line ends with its sentence: "Eszközök: a, b. Védőkesztyű kötelező." → "a, b". */
function listPart(body: string): string {
  if (/\r?\n/.test(body.trim())) return body;
  return body.split(/\.\s+(?=\p{Lu})/u)[0] ?? body;
}

function splitSequence(text: string): string[] {
  if (!/(?<![\p{L}])(?:majd|ezután|végül|then|next|finally)(?![\p{L}])/iu.test(text)) return [];
  return splitItems(text);
}

/** Safety rules a request states in passing ("Gloves required", "védőkesztyűben"). */
const PPE: ReadonlyArray<[RegExp, string]> = [
  [/védőkesztyű|kesztyű|gloves?/iu, "Védőkesztyű viselése kötelező."],
  [/védőszemüveg|safety glasses|goggles/iu, "Védőszemüveg viselése kötelező."],
  [/hallásvéd|fülvéd|ear protection|hearing protection/iu, "Hallásvédő viselése kötelező."],
  [/biztonsági cipő|munkavédelmi cipő|safety (?:shoes|boots)/iu, "Biztonsági lábbeli viselése kötelező."],
  [/áramtalan|lockout|loto/iu, "Munka előtt a berendezést áramtalanítsa és zárja ki (LOTO)."],
];
