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
  /** Clauses no rule could place. */
  unapplied: string[];
}

type Rule = { re: RegExp; apply: (doc: TwiDocument, m: RegExpExecArray) => boolean };

function stepAt(doc: TwiDocument, n: string | undefined) {
  return doc.steps[Number(n) - 1];
}

const RULES: readonly Rule[] = [
  {
    re: /^(?:cím|title)\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      doc.title = (m[1] ?? "").replace(/\.$/, "").trim();
      return true;
    },
  },
  {
    re: /^(?:cél|goal|purpose)\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      doc.goal = sentence(m[1] ?? "");
      return true;
    },
  },
  {
    re: /^(?:eszköz|anyag|szerszám|tool|material|equipment)\p{L}*\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      doc.materials.push(...splitItems(m[1] ?? "").map(sentence));
      return true;
    },
  },
  {
    re: /^(?:biztonság|munkavédelem|safety|ppe)\p{L}*\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      doc.safety.push(sentence(m[1] ?? ""));
      return true;
    },
  },
  {
    re: /^(?:ellenőrzés|minőség|quality|check)\p{L}*\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      doc.qualityChecks.push(sentence(m[1] ?? ""));
      return true;
    },
  },
  {
    re: /^(?:(\d+)\.?\s*lépés|(?:step|lépés)\s*(\d+))\s*(?:kulcspont\p{L}*|key points?)\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      const step = stepAt(doc, m[1] ?? m[2]);
      if (step) step.keyPoints.push(...splitItems(m[3] ?? ""));
      return step !== undefined;
    },
  },
  {
    re: /^(?:(\d+)\.?\s*lépés|(?:step|lépés)\s*(\d+))\s*(?:indoklás|rationale|reason)\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      const step = stepAt(doc, m[1] ?? m[2]);
      if (step) step.rationale = sentence(m[3] ?? "");
      return step !== undefined;
    },
  },
  {
    re: /^(?:töröld|törölje|távolítsd el|távolítsa el|remove|delete)\s+(?:a\s+|az\s+)?(?:(\d+)\.?\s*lépés\p{L}*|step\s+(\d+))/iu,
    apply: (doc, m) => {
      const index = Number(m[1] ?? m[2]) - 1;
      if (!doc.steps[index]) return false;
      doc.steps.splice(index, 1);
      return true;
    },
  },
  {
    re: /^(?:(\d+)\.?\s*lépés|step\s+(\d+))\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      const index = Number(m[1] ?? m[2]) - 1;
      if (!doc.steps[index]) return false;
      doc.steps[index] = completeStep(parseStep(m[3] ?? ""));
      return true;
    },
  },
  {
    re: /^(?:új lépés|lépés|add (?:a )?step|new step|step)\s*:\s*(.+)$/iu,
    apply: (doc, m) => {
      doc.steps.push(completeStep(parseStep(m[1] ?? "")));
      return true;
    },
  },
];

/** Free text goes to the section its words point to. */
const TOPICS: ReadonlyArray<[RegExp, "safety" | "materials" | "qualityChecks"]> = [
  [/védő|biztonság|veszély|baleset|kesztyű|szemüveg|safety|ppe|glove|goggle|hazard/iu, "safety"],
  [/eszköz|szerszám|anyag|kulcs|tool|material|equipment/iu, "materials"],
  [/ellenőr|mérés|mérje|minőség|check|inspect|quality|measure/iu, "qualityChecks"],
];

/**
 * Applies feedback to a copy of `previous`. Clauses are separated by new lines or semicolons.
 *
 * @example
 * applyFeedback(doc, "Add step: Clean the bench; Safety: wear goggles").applied.length; // 2
 */
export function applyFeedback(previous: TwiDocument, feedback: string): FeedbackResult {
  const doc: TwiDocument = structuredClone(previous);
  const applied: string[] = [];
  const unapplied: string[] = [];
  const clauses = feedback
    .split(/\r?\n|;\s+/u)
    .map((c) => c.trim().replace(/^[-•*]\s*/, ""))
    .filter((c) => c !== "");
  for (const clause of clauses) {
    const rule = RULES.map((r) => ({ r, m: r.re.exec(clause) })).find((x) => x.m !== null);
    if (rule?.m && rule.r.apply(doc, rule.m)) {
      applied.push(clause);
      continue;
    }
    const topic = TOPICS.find(([re]) => re.test(clause));
    if (topic) {
      doc[topic[1]].push(sentence(clause));
      applied.push(clause);
    } else {
      unapplied.push(clause);
    }
  }
  return { doc, applied, unapplied };
}
