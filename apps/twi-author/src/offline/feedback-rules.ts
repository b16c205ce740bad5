/**
 * How the offline model works a reviewer's feedback into the previous draft: labelled commands
 * ("Biztonság: …", "Add step: …", "2. lépés kulcspont: …", "Töröld a 3. lépést") and, for free text,
 * the section its words point to. What it cannot place is reported, never silently dropped. Clauses
 * are separated by new lines or semicolons.
 */
import type { TwiDocument, TwiStep } from "../twi-document.js";
import { parseStep, sentence, splitItems } from "./request-parser.js";

/** Marks what the reviewer's step did not say, for the expert to fill in (as a new draft does). */
const TO_COMPLETE = "[KIEGÉSZÍTENDŐ]";

/** A step from feedback with its missing key points and reason marked, never left empty. */
function completeStep(step: TwiStep): TwiStep {
  return {
    action: step.action,
    keyPoints: step.keyPoints.length > 0 ? step.keyPoints : [`${TO_COMPLETE} kulcspont (a kérés nem adta meg)`],
    rationale: step.rationale || `${TO_COMPLETE} indoklás (a kérés nem adta meg)`,
  };
}

/**
 * The outcome of applying feedback.
 *
 * @example
 * const { doc, unapplied } = applyFeedback(previous, "Biztonság: védőszemüveg kötelező");
 */
export interface FeedbackResult {
  doc: TwiDocument;
  /** Clauses that changed the document. */
  applied: string[];
  /** Each applied clause with where it landed: `„…” → 5. LÉPÉSEK / 2. lépés, kulcspont`. */
  placed: string[];
  /** Clauses no rule could place. */
  unapplied: string[];
}

const H = {
  title: "1. CÍM",
  goal: "2. CÉL",
  materials: "3. SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK",
  safety: "4. BIZTONSÁGI ELŐÍRÁSOK",
  steps: "5. LÉPÉSEK",
  qualityChecks: "6. MINŐSÉGI ELLENŐRZÉS",
} as const;

/** Where a rule put a clause, or `undefined` when it could not (a step that does not exist). */
type Rule = { re: RegExp; apply: (doc: TwiDocument, m: RegExpExecArray) => string | undefined };

function isGap(text: string): boolean {
  return text.includes(TO_COMPLETE);
}

/** Adds items to a list, dropping the gap markers they fill. */
function fill(list: string[], items: readonly string[]): void {
  const kept = list.filter((item) => !isGap(item));
  list.splice(0, list.length, ...kept, ...items);
}

function stepAt(doc: TwiDocument, n: string | undefined) {
  return doc.steps[Number(n) - 1];
}

const STEP_REF = String.raw`(?:(\d+)\.?\s*lépés\p{L}*|(?:step|lépés)\s*(\d+))`;

const RULES: readonly Rule[] = [
  {
    re: /^(?:cím|title)\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      doc.title = (m[1] ?? "").replace(/\.$/, "").trim();
      return H.title;
    },
  },
  {
    re: /^(?:cél|goal|purpose)\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      doc.goal = sentence(m[1] ?? "");
      return H.goal;
    },
  },
  {
    re: /^(?:eszköz|anyag|szerszám|tool|material|equipment)\p{L}*\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      fill(doc.materials, splitItems(m[1] ?? "").map(sentence));
      return H.materials;
    },
  },
  {
    re: /^(?:biztonság|munkavédelem|safety|ppe)\p{L}*\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      fill(doc.safety, [sentence(m[1] ?? "")]);
      return H.safety;
    },
  },
  {
    re: /^(?:ellenőrzés|minőség|quality|check)\p{L}*\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      fill(doc.qualityChecks, [sentence(m[1] ?? "")]);
      return H.qualityChecks;
    },
  },
  {
    re: new RegExp(String.raw`^${STEP_REF}\s*(?:kulcspont\p{L}*|key points?)\s*:?\s*(.+)$`, "iu"),
    apply: (doc, m) => {
      const step = stepAt(doc, m[1] ?? m[2]);
      if (!step) return undefined;
      fill(step.keyPoints, splitItems(m[3] ?? ""));
      return `${H.steps} / ${m[1] ?? m[2]}. lépés, kulcspont`;
    },
  },
  {
    re: new RegExp(String.raw`^${STEP_REF}\s*(?:indoklás\p{L}*|rationale|reason)\s*:?\s*(.+)$`, "iu"),
    apply: (doc, m) => {
      const step = stepAt(doc, m[1] ?? m[2]);
      if (!step) return undefined;
      step.rationale = sentence(m[3] ?? "");
      return `${H.steps} / ${m[1] ?? m[2]}. lépés, indoklás`;
    },
  },
  {
    re: /^(?:töröld|törölje|távolítsd el|távolítsa el|remove|delete)\s+(?:a\s+|az\s+|the\s+)?(?:(\d+)\.?\s*lépés\p{L}*|step\s+(\d+))/iu,
    apply: (doc, m) => {
      const index = Number(m[1] ?? m[2]) - 1;
      if (!doc.steps[index]) return undefined;
      doc.steps.splice(index, 1);
      return `${H.steps} / ${index + 1}. lépés törölve`;
    },
  },
  {
    re: new RegExp(String.raw`^${STEP_REF}\s*:\s*(.+)$`, "iu"),
    apply: (doc, m) => {
      const index = Number(m[1] ?? m[2]) - 1;
      if (!doc.steps[index]) return undefined;
      doc.steps[index] = completeStep(parseStep(m[3] ?? ""));
      return `${H.steps} / ${index + 1}. lépés (átírva)`;
    },
  },
  {
    re: /^(?:új lépés|lépés|add (?:a )?step|new step|step)\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      doc.steps.push(completeStep(parseStep(m[1] ?? "")));
      return `${H.steps} / ${doc.steps.length}. lépés (új)`;
    },
  },
];

/** Free text that names a step ("a 3. lépésnél ügyeljen…", "in step 2 …") is that step's key point. */
const STEP_MENTION = /(?<![\p{L}\d])(?:(\d+)\.\s*lépés\p{L}*|step\s+(\d+))/iu;

/** Free text goes to the section its words point to. */
const TOPICS: ReadonlyArray<[RegExp, "safety" | "materials" | "qualityChecks"]> = [
  [/védő|biztonság|veszély|baleset|kesztyű|szemüveg|safety|ppe|glove|goggle|hazard/iu, "safety"],
  [/eszköz|szerszám|anyag|kulcs(?!pont)|tool|material|equipment/iu, "materials"],
  [/ellenőr|mérés|mérje|minőség|check|inspect|quality|measure/iu, "qualityChecks"],
];

/** A clause without its leading article ("A 2. lépés kulcspont: …" reads as "2. lépés kulcspont: …"). */
function withoutArticle(clause: string): string {
  return clause.replace(/^(?:a|az|the)\s+(?=\d|\p{L})/iu, "");
}

/**
 * Applies feedback to a copy of `previous`. Clauses are separated by new lines or semicolons. Each
 * applied clause says where it landed ({@link FeedbackResult.placed}), so the revision note is true.
 *
 * @example
 * applyFeedback(doc, "Add step: Clean the bench; Safety: wear goggles").applied.length; // 2
 */
export function applyFeedback(previous: TwiDocument, feedback: string): FeedbackResult {
  const doc: TwiDocument = structuredClone(previous);
  const result: FeedbackResult = { doc, applied: [], placed: [], unapplied: [] };
  const clauses = feedback
    .split(/\r?\n|;\s+/u)
    .map((c) => c.trim().replace(/^[-•*]\s*/, ""))
    .filter((c) => c !== "");
  for (const clause of clauses) {
    const where = place(doc, clause);
    if (where === undefined) {
      result.unapplied.push(clause);
    } else {
      result.applied.push(clause);
      result.placed.push(`„${clause}” → ${where}`);
    }
  }
  return result;
}

function place(doc: TwiDocument, clause: string): string | undefined {
  const bare = withoutArticle(clause);
  for (const rule of RULES) {
    const m = rule.re.exec(bare);
    if (m) return rule.apply(doc, m);
  }
  const mention = STEP_MENTION.exec(bare);
  if (mention) {
    const n = mention[1] ?? mention[2];
    const step = stepAt(doc, n);
    if (!step) return undefined;
    fill(step.keyPoints, [clause.replace(/[.;]+$/, "").trim()]);
    return `${H.steps} / ${n}. lépés, kulcspont`;
  }
  const topic = TOPICS.find(([re]) => re.test(clause));
  if (!topic) return undefined;
  fill(doc[topic[1]], [sentence(clause)]);
  return H[topic[1]];
}
