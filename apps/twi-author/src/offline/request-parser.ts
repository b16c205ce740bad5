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

/** Words after which a number is an ordinal ("a 2. polcról", "the 3. shelf"), never a list item. */
const ORDINAL_BEFORE = /(?:^|\s)(?:a|az|the|of|on|at|in|és|vagy|and|or|mint|minden|kb|cca|ca|és\/vagy)$/iu;
/** A list marker at the start of a line: "1.", "2)", "-", "•", "*", "–". */
const LINE_MARKER = /^\s*(?:\d{1,3}\s*[.)]|[-•*–])\s+/u;

/**
 * The items of a numbered list written on one line: only numbers that follow each other (1, 2, 3 …),
 * not after an article ("a 2. polcról" is an ordinal), and starting with a capital when the list does.
 */
function inlineNumbered(text: string): string[] {
  const starts: Array<{ at: number; body: number }> = [];
  let expected: number | undefined;
  let capital: boolean | undefined;
  for (const m of text.matchAll(/(^|\s)(\d{1,3})\s*[.)]\s+(?=\p{L}|["„(])/gu)) {
    const n = Number(m[2]);
    const at = (m.index ?? 0) + (m[1] ?? "").length;
    const body = (m.index ?? 0) + m[0].length;
    const first = text.charAt(body);
    const isCapital = first !== first.toLowerCase();
    if (expected === undefined ? n > 1 : n !== expected) continue;
    if (ORDINAL_BEFORE.test(text.slice(0, at).trimEnd())) continue;
    if (capital === true && !isCapital) continue;
    capital ??= isCapital;
    starts.push({ at, body });
    expected = n + 1;
  }
  if (starts.length === 0) return [];
  return starts.map((s, i) => text.slice(s.body, starts[i + 1]?.at ?? text.length));
}

/**
 * Splits an enumeration as written: one item per marked line (numbered or bulleted; an unmarked line
 * continues the item above), a numbered list on one line (1, 2, 3 … in order; ordinals such as "a 2.
 * polcról" stay in their item), or sequence words ("majd", "then").
 *
 * @example
 * splitItems("1. Vegye le a dobozt a 2. polcról 2. Tegye a kocsira"); // ["Vegye le a dobozt a 2. polcról", "Tegye a kocsira"]
 */
export function splitItems(text: string): string[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  if (lines.filter((l) => LINE_MARKER.test(l)).length >= 2) {
    const items: string[] = [];
    for (const line of lines) {
      if (LINE_MARKER.test(line) || items.length === 0) items.push(line.replace(LINE_MARKER, ""));
      else items[items.length - 1] = `${items[items.length - 1]} ${line.trim()}`;
    }
    return clean(items);
  }
  const numbered = inlineNumbered(text);
  if (numbered.length >= 2 || (numbered.length === 1 && /^\s*1\s*[.)]/.test(text))) return clean(numbered);
  if (lines.length >= 2) return clean(lines.map((l) => l.replace(/^[-•*]\s*/, "")));
  const sequenced = text.split(
    /\s*(?:;|,?\s+(?:majd|ezután|azután|aztán|utána|végül|then|after that|next|finally)\s+|\.\s+(?:majd|ezután|aztán|utána|végül|then|next|finally|afterwards)\s+)/iu,
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
  /\s*(?:,\s*)?(?<![\p{L}])(?:ügyelve arra, hogy|ügyeljen arra, hogy|ügyelj arra, hogy|figyelve arra, hogy|vigyázva arra, hogy|úgy, hogy|kulcspont(?:ok)?:|key points?:|making sure(?: that)?|make sure(?: that)?|ensuring(?: that)?)(?![\p{L}])\s*/iu;
/** A comma that joins a subordinate clause to its sentence ("…, hogy …"): not a split between key points. */
const CLAUSE_COMMA =
  /,\s+(?=(?:hogy|mert|ha|amíg|míg|mielőtt|miután|amely|ami|amit|ahol|that|which|so|because|until|before|while|when)(?![\p{L}]))/iu;

/**
 * The text with every character inside parentheses (nested too) replaced by "_", same length: a
 * pattern run on it finds only what stands outside the parentheses.
 */
function maskParens(text: string): string {
  let depth = 0;
  let out = "";
  for (const ch of text) {
    if (ch === "(") depth += 1;
    out += depth > 0 ? "_".repeat(ch.length) : ch;
    if (ch === ")" && depth > 0) depth -= 1;
  }
  return out;
}

/**
 * The parenthesised asides of a text that stand on their own (after a space or at the start; "a(z)"
 * and "csavar(ok)" are part of their word), with the text left when they are taken out.
 */
function asides(text: string): { rest: string; inner: string[] } {
  const inner: string[] = [];
  let rest = "";
  let i = 0;
  while (i < text.length) {
    const ch = text.charAt(i);
    const standalone = ch === "(" && (i === 0 || /\s/u.test(text.charAt(i - 1)));
    if (!standalone) {
      rest += ch;
      i += 1;
      continue;
    }
    let depth = 0;
    let j = i;
    for (; j < text.length; j += 1) {
      if (text.charAt(j) === "(") depth += 1;
      if (text.charAt(j) === ")" && --depth === 0) break;
    }
    inner.push(text.slice(i + 1, j));
    rest = rest.trimEnd();
    i = j + 1;
  }
  return { rest: rest.replace(/\s{2,}/g, " ").replace(/\s+([,.;])/g, "$1"), inner };
}

/** The key points of one aside: split on semicolons, and on commas that do not open a clause. */
function pointsOf(aside: string): string[] {
  const marked = aside.replace(KEY_POINT_MARKERS, (m, offset: number) => (offset === 0 ? "" : m));
  const parts = marked.split(/;\s*/);
  return clean(
    parts.flatMap((part) => {
      const pieces: string[] = [];
      let rest = part;
      for (;;) {
        const comma = /,\s+/u.exec(rest);
        if (!comma) break;
        const clause = CLAUSE_COMMA.exec(rest);
        if (clause && clause.index === comma.index) {
          // a subordinate clause: keep it with its sentence, split after it only at a later plain comma
          const later = rest.slice(comma.index + comma[0].length);
          const next = /,\s+/u.exec(later);
          if (!next || CLAUSE_COMMA.exec(later)?.index === next.index) break;
          pieces.push(rest.slice(0, comma.index + comma[0].length + next.index));
          rest = later.slice(next.index + next[0].length);
          continue;
        }
        pieces.push(rest.slice(0, comma.index));
        rest = rest.slice(comma.index + comma[0].length);
      }
      pieces.push(rest);
      return pieces;
    }),
  );
}

/**
 * Reads one step: the main action, key points (in parentheses or after "ügyelve arra, hogy", "make
 * sure", "kulcspont:") and the reason (after "mert", "because", "so that", "különben"). Parentheses
 * nest and may hold commas and "hogy" clauses; "a(z)" is a word, not an aside.
 *
 * @example
 * parseStep("Húzza meg a csavart kattanásig (egyenletesen), mert a túlhúzás elszakítja a menetet");
 * // { action: "Húzza meg a csavart kattanásig.", keyPoints: ["egyenletesen"], rationale: "A túlhúzás elszakítja a menetet." }
 */
export function parseStep(text: string): TwiStep {
  // a sequence word opening a step is not part of its action ("Először ellenőrizze …")
  let rest = text
    .trim()
    .replace(/^(?:először|elsőként|aztán|majd|utána|ezután|azután|végül|first|then|next|finally)[,]?\s+/iu, "");
  let rationale = "";
  const why = RATIONALE_SPLIT.exec(maskParens(rest));
  if (why && why.index > 0) {
    const marker = (why[1] ?? "").toLowerCase();
    const reason = rest.slice(why.index + why[0].length);
    rationale = marker === "hogy ne" ? `Hogy ne ${reason}` : marker === "különben" ? `Különben ${reason}` : reason;
    rationale = marker === "otherwise" ? `Otherwise ${reason}` : rationale;
    rest = rest.slice(0, why.index);
  }
  const { rest: action, inner } = asides(rest);
  // an aside that gives its reason ("(óvatosan, mert nyomás alatt lehet)"): the key point, and the
  // step's reason when the step states none outside
  const keyPoints = inner.flatMap((aside) => {
    const because = RATIONALE_SPLIT.exec(maskParens(aside));
    if (!because || because.index === 0 || rationale !== "") return pointsOf(aside);
    rationale = aside.slice(because.index + because[0].length);
    return pointsOf(aside.slice(0, because.index));
  });
  rest = action;
  const marked = KEY_POINT_MARKERS.exec(maskParens(rest));
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

/** Words that say what kind of document is wanted, in any case ("útmutatót", "leírást"): never the job. */
const KIND_WORDS =
  /^(?:(?:egy|új|rövid|részletes|írásos|betanítási|oktatási|munkavédelmi|twi)\s+|(?:twi-t|twi-s|munkautasítás|utasítás|útmutató|leírás|munkaleírás|oktatóanyag|anyag|instrukció|eljárásrend|oktatás|betanítás)\p{L}*\s*|(?:training|guide|procedure|document|sop)s?\s+)/iu;

/**
 * The job named after the document words: "útmutatót arról, hogyan kell a tengelyt megmérni" →
 * "hogyan kell a tengelyt megmérni"; "a tengely méréséről az új kollégáknak" → "a tengely méréséről".
 */
function jobPhrase(text: string): string {
  let rest = text.trim();
  for (let i = 0; i < 6 && KIND_WORDS.test(rest); i += 1) rest = rest.replace(KIND_WORDS, "");
  rest = rest.replace(/^(?:(?:for|on|about|covering|to|on how to)\s+)/iu, "");
  rest = rest.replace(/^(?:arról|erről),?\s+(?:hogy\s+)?(hogyan|miként|mi módon)\s+/iu, "hogyan ");
  rest = rest.replace(/^(?:arról|erről),?\s+hogy\s+/iu, "");
  rest = rest.replace(/^how\s+to\s+/iu, "");
  // who it is for is not the job: "… az új kollégáknak", "… for new operators"
  rest = rest.replace(
    /\s+(?:(?:az?\s+)?(?:új\s+)?(?:kollégá|dolgozó|operátor|betanuló|munkatárs|gépkezelő)\p{L}*(?:\s+számára)?|for\s+(?:the\s+)?new\s+\p{L}+)[.!]?$/iu,
    "",
  );
  return rest;
}

/**
 * Picks the job out of the opening sentence: "Írj TWI-t a raklap fóliázásáról" → "a raklap
 * fóliázásáról"; "Write a TWI for pallet wrapping" → "pallet wrapping". `null` when there is none.
 *
 * @example
 * extractTask("Write a TWI for pallet wrapping."); // "pallet wrapping"
 */
export function extractTask(intro: string): string | null {
  const first = (intro.split(/(?<=[.!?:])\s+|:\s*$|\r?\n/)[0] ?? "").trim();
  const anchored = aroundDocumentWord(first);
  if (anchored !== undefined) return anchored;
  let rest = first;
  for (const opener of REQUEST_OPENERS) rest = rest.replace(opener, "");
  const withoutDoc = jobPhrase(rest.replace(DOCUMENT_WORDS, ""));
  if (withoutDoc === rest && rest === first) {
    // No request wording at all: the sentence itself may name the job only if it is short.
    if (rest.split(/\s+/).length > 12) return null;
  }
  return taskOrNull(withoutDoc);
}

/** A word for the document asked for, in any case ("munkautasításra", "TWI-t", "leírása", "útmutatót"). */
const DOC_WORD =
  /(?<![\p{L}\d-])(?:twi(?:-[a-zé]+)?|(?:munkautasítás|utasítás|útmutató|leírás|munkaleírás|oktatóanyag|instrukció|eljárásrend|betanítás)\p{L}*|(?:job|work)\s+instructions?|sop)(?![\p{L}])/iu;
/** Words around the document word that ask, never name the job. */
const ASKING =
  /^(?:(?:kérlek|kérem|légyszi|légy szíves|szükségem|szükség|lenne|van|volna|kellene|kéne|kell|kérek|kérnék|szeretnék|írj|írjon|írd meg|készíts|készítsen|csinálj|egy|új|nekem|nekünk|róla|erről|arról|please|write|create|make|a|an|the)[,]?(?:\s+|$))+/iu;
/** The job is written with a case ending that names a topic ("-ról", "-hoz", "arról, hogyan") or "for …". */
const NAMES_A_JOB =
  /\p{L}{3,}(?:ról|ről|hoz|hez|höz)(?![\p{L}])|(?:^|\s)(?:arról|erről)|(?:^|\s)(?:for|on|about|covering)\s/iu;

/**
 * The job named next to the document word: after it ("…munkautasításra a címkenyomtató
 * szalagcseréjéről"), or before it when what follows names no topic ("A csavarok meghúzásáról kérek
 * egy TWI-t", "Forrasztás – TWI-t kérek róla"). `undefined` when the sentence has no document word.
 */
function aroundDocumentWord(sentence: string): string | null | undefined {
  const doc = DOC_WORD.exec(sentence);
  if (!doc) return undefined;
  const after = jobPhrase(
    sentence
      .slice(doc.index + doc[0].length)
      .trim()
      .replace(ASKING, ""),
  );
  const before = sentence
    .slice(0, doc.index)
    .replace(ASKING, "")
    .replace(
      /(?:\s+(?:kérlek|kérem|kérek|kérnék|szeretnék|kellene|kéne|kell|lenne|egy|new|a|an|the|írj|készíts)|[\s,–—-])+$/iu,
      "",
    )
    .trim();
  const job = NAMES_A_JOB.test(after) || before === "" ? after : jobPhrase(before);
  return taskOrNull(withoutClauses(job));
}

/** Cuts what follows the job: a relative clause, the audience, a list label ("…ről, ami így megy"). */
function withoutClauses(text: string): string {
  return text.replace(/\s*,\s*(?:ami|amely|ahol|amit|az?\s|lépések|which|that).*$/iu, "").replace(/[,\s]+$/u, "");
}

function taskOrNull(text: string): string | null {
  const task = text.replace(/[.!?:]+$/, "").trim();
  if (task === "" || /^(?:twi|egy|a|az|valamit|something|róla)$/i.test(task)) return null;
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
    // Steps written straight into the request: "…: 1. … 2. …", a bulleted list on its own lines, or
    // sentences joined by "majd"/"then". A list starts at "1." or at its first marked line ("a 3.
    // jelölésig" is an ordinal, not a list).
    const afterFirst = intro.replace(/^[^.!?\n:]*[.!?:\n]\s*/, "");
    const listStart = intro.search(/(?:^|\s)1\s*[.)]\s+\p{L}|(?:^|\n)\s*[-•*–]\s+\p{L}/u);
    const candidates = listStart >= 0 ? splitItems(intro.slice(listStart)) : [];
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
  if (!/(?<![\p{L}])(?:majd|ezután|aztán|utána|végül|then|next|finally|afterwards)(?![\p{L}])/iu.test(text)) return [];
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
