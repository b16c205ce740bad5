/**
 * A TWI (Training Within Industry) job instruction as data, its canonical text form, and a lenient
 * parser that reads that form back — also from a real model's Markdown-flavoured output.
 */

/**
 * One step of the instruction: the main action, its key points and why they matter.
 *
 * @example
 * const step: TwiStep = { action: "Helyezze be a csavart", keyPoints: ["kézzel, ütközésig"], rationale: "menetvédelem" };
 */
export interface TwiStep {
  action: string;
  keyPoints: string[];
  rationale: string;
}

/**
 * The six sections of the seed's output format, plus free notes that come before them.
 *
 * @example
 * const doc: TwiDocument = { title: "…", goal: "…", materials: [], safety: [], steps: [], qualityChecks: [], notes: [] };
 */
export interface TwiDocument {
  /** 1. CÍM */
  title: string;
  /** 2. CÉL */
  goal: string;
  /** 3. SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK */
  materials: string[];
  /** 4. BIZTONSÁGI ELŐÍRÁSOK */
  safety: string[];
  /** 5. LÉPÉSEK */
  steps: TwiStep[];
  /** 6. MINŐSÉGI ELLENŐRZÉS */
  qualityChecks: string[];
  /** Lines before the first section (revision notes); never the AI label. */
  notes: string[];
}

/** Section keys in document order. */
type SectionKey = "title" | "goal" | "materials" | "safety" | "steps" | "qualityChecks";

/**
 * The section headings, in order, as the seed names them.
 *
 * @example
 * SECTION_HEADINGS.steps; // "LÉPÉSEK"
 */
export const SECTION_HEADINGS: Readonly<Record<SectionKey, string>> = {
  title: "CÍM",
  goal: "CÉL",
  materials: "SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK",
  safety: "BIZTONSÁGI ELŐÍRÁSOK",
  steps: "LÉPÉSEK",
  qualityChecks: "MINŐSÉGI ELLENŐRZÉS",
};

const ORDER: readonly SectionKey[] = ["title", "goal", "materials", "safety", "steps", "qualityChecks"];

/** Labels inside a step. */
const KEY_POINTS_LABEL = "Kulcspontok:";
const RATIONALE_LABEL = "Indoklás:";

/**
 * Writes a document in the canonical text form (the form the offline model answers in and the
 * prompt asks a real model for).
 *
 * @example
 * renderTwiText(doc); // "1. CÍM\nCsavarkötés …\n\n2. CÉL\n…"
 */
export function renderTwiText(doc: TwiDocument): string {
  const out: string[] = [];
  for (const note of doc.notes) out.push(note);
  if (doc.notes.length > 0) out.push("");
  ORDER.forEach((key, index) => {
    out.push(`${index + 1}. ${SECTION_HEADINGS[key]}`);
    if (key === "title") out.push(doc.title);
    else if (key === "goal") out.push(doc.goal);
    else if (key === "steps") out.push(...renderSteps(doc.steps));
    else for (const item of doc[key]) out.push(`- ${item}`);
    out.push("");
  });
  return out.join("\n").trimEnd();
}

function renderSteps(steps: readonly TwiStep[]): string[] {
  const out: string[] = [];
  steps.forEach((step, i) => {
    out.push(`${i + 1}. lépés: ${step.action}`);
    out.push(`   ${KEY_POINTS_LABEL}`);
    for (const point of step.keyPoints) out.push(`   - ${point}`);
    out.push(`   ${RATIONALE_LABEL} ${step.rationale}`);
  });
  return out;
}

/** Removes Markdown decoration around a heading or a line. */
function plain(line: string): string {
  return line
    .replace(/^\s*#{1,6}\s*/, "")
    .replace(/\*\*|__/g, "")
    .replace(/^\s*\*\s+/, "- ")
    .trim();
}

/** Folds accents away and upper-cases, so "Minőségi ellenőrzés" matches "MINŐSÉGI ELLENŐRZÉS". */
function fold(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toUpperCase();
}

const HEADING_KEYS: ReadonlyArray<[SectionKey, RegExp]> = [
  ["materials", /^SZUKSEGES ANYAGOK/],
  ["safety", /^BIZTONSAGI ELOIRASOK/],
  ["qualityChecks", /^MINOSEGI ELLENORZES/],
  ["steps", /^LEPESEK\b/],
  ["title", /^CIM\b/],
  ["goal", /^CEL\b/],
];

/**
 * Tells whether a line is one of the six section headings (`5. LÉPÉSEK`, `## Lépések`, `**CÉL:** …`);
 * returns the section and any text after the heading on the same line.
 *
 * @example
 * matchHeading("2. CÉL: Biztonságos meghúzás"); // { key: "goal", rest: "Biztonságos meghúzás" }
 */
export function matchHeading(line: string): { key: SectionKey; rest: string } | undefined {
  const text = plain(line).replace(/^\d+\s*[.)]\s*/, "");
  const folded = fold(text);
  for (const [key, pattern] of HEADING_KEYS) {
    const m = pattern.exec(folded);
    if (!m) continue;
    const heading = SECTION_HEADINGS[key];
    // Only a heading when nothing but a colon or a parenthesised gloss follows the heading words.
    const after = text.slice(heading.length).replace(/^\s*\([^)]*\)/, "");
    if (after !== "" && !/^\s*[:–—-]/.test(after)) return undefined;
    return { key, rest: after.replace(/^\s*[:–—-]\s*/, "").trim() };
  }
  return undefined;
}

const STEP_START = /^(?:(\d+)\s*[.)]\s*(?:lépés\s*[:.–—-]?\s*)?|(?:lépés|step)\s*(\d+)\s*[:.–—-]\s*)(.*)$/i;
const LIST_ITEM = /^(?:[-•*–]|\d+\s*[.)])\s+/;

/**
 * Reads a draft back into a document. Lenient: accepts the canonical form, Markdown headings and bold,
 * headings with glosses ("CÍM (Title)"), and steps as `1. lépés: …` or `1. …`. Returns `undefined` when
 * fewer than four of the six sections are present — the text is then not a TWI instruction (a
 * question back to the user, an answer to a question).
 *
 * @example
 * const doc = parseTwiText(state.draft ?? "");
 * doc?.steps.length;
 */
export function parseTwiText(text: string): TwiDocument | undefined {
  const doc: TwiDocument = { title: "", goal: "", materials: [], safety: [], steps: [], qualityChecks: [], notes: [] };
  const seen = new Set<SectionKey>();
  let current: SectionKey | undefined;
  let step: TwiStep | undefined;
  let inKeyPoints = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = plain(raw);
    if (line === "" || /^AI által generált/i.test(line.replace(/^(?:⚠\uFE0F?|\s)+/u, ""))) continue;
    const heading = matchHeading(raw);
    if (heading) {
      current = heading.key;
      seen.add(current);
      step = undefined;
      if (heading.rest) addToSection(doc, current, heading.rest);
      continue;
    }
    if (current === undefined) {
      doc.notes.push(line);
    } else if (current === "steps") {
      const started = STEP_START.exec(line);
      const rationale = /^(?:[-•]\s*)?(?:indoklás|miért|rationale|reason)\s*[:–—-]\s*(.*)$/i.exec(line);
      const keyLabel = /^(?:[-•]\s*)?(?:kulcspontok?|key points?)\s*[:–—-]\s*(.*)$/i.exec(line);
      if (started && !/^\s/.test(raw.replace(/^\s*[#*]+\s*/, ""))) {
        step = { action: (started[3] ?? "").trim(), keyPoints: [], rationale: "" };
        doc.steps.push(step);
        inKeyPoints = false;
      } else if (step && rationale) {
        step.rationale = (rationale[1] ?? "").trim();
        inKeyPoints = false;
      } else if (step && keyLabel) {
        inKeyPoints = true;
        if (keyLabel[1]) step.keyPoints.push(keyLabel[1].trim());
      } else if (step && (inKeyPoints || LIST_ITEM.test(line))) {
        step.keyPoints.push(line.replace(LIST_ITEM, "").trim());
      } else if (step) {
        step.action = `${step.action} ${line}`.trim();
      }
    } else {
      addToSection(doc, current, line);
    }
  }
  return seen.size >= 4 ? doc : undefined;
}

/**
 * The sections of a document that are empty, as their numbered headings ("4. BIZTONSÁGI ELŐÍRÁSOK");
 * a step without its action counts as an empty steps section. An instruction is complete when this is
 * empty: only a complete one is accepted as an edit or published.
 *
 * @example
 * missingSections({ ...doc, safety: [] }); // ["4. BIZTONSÁGI ELŐÍRÁSOK"]
 */
export function missingSections(doc: TwiDocument): string[] {
  const empty: Record<SectionKey, boolean> = {
    title: doc.title.trim() === "",
    goal: doc.goal.trim() === "",
    materials: doc.materials.every((m) => m.trim() === ""),
    safety: doc.safety.every((m) => m.trim() === ""),
    steps: doc.steps.length === 0 || doc.steps.some((s) => s.action.trim() === ""),
    qualityChecks: doc.qualityChecks.every((m) => m.trim() === ""),
  };
  return ORDER.flatMap((key, i) => (empty[key] ? [`${i + 1}. ${SECTION_HEADINGS[key]}`] : []));
}

/**
 * Where a document still holds a gap marker (`[KIEGÉSZÍTENDŐ]`, or any text in square brackets the
 * writer left for the expert): the numbered heading, and the step for the steps section.
 *
 * @example
 * placeholderPlaces(doc); // ["3. SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK", "5. LÉPÉSEK / 2. lépés"]
 */
export function placeholderPlaces(doc: TwiDocument): string[] {
  const marked = (text: string) => /\[KIEG[EÉ]SZ[IÍ]TEND[OŐ]\]/iu.test(text);
  const places: string[] = [];
  const heading = (key: SectionKey) => `${ORDER.indexOf(key) + 1}. ${SECTION_HEADINGS[key]}`;
  if (marked(doc.title)) places.push(heading("title"));
  if (marked(doc.goal)) places.push(heading("goal"));
  for (const key of ["materials", "safety"] as const) if (doc[key].some(marked)) places.push(heading(key));
  doc.steps.forEach((step, i) => {
    if ([step.action, step.rationale, ...step.keyPoints].some(marked))
      places.push(`${heading("steps")} / ${i + 1}. lépés`);
  });
  if (doc.qualityChecks.some(marked)) places.push(heading("qualityChecks"));
  return places;
}

function addToSection(doc: TwiDocument, key: SectionKey, line: string): void {
  const item = line.replace(LIST_ITEM, "").trim();
  if (item === "") return;
  if (key === "title") doc.title = doc.title ? `${doc.title} ${item}` : item;
  else if (key === "goal") doc.goal = doc.goal ? `${doc.goal} ${item}` : item;
  else if (key === "materials" || key === "safety" || key === "qualityChecks") doc[key].push(item);
}
