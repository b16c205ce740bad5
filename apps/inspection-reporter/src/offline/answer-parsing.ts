import type { ClarificationQuestion } from "../agents/request-clarification.js";
import { kvkNumber, reportFacts, streetAddress } from "./report-facts.js";

/** One answer for `submit_verification_answers`. */
export interface FieldAnswer {
  field: string;
  answer: string;
}

const YES_NO = /^(ja|j|nee|n|neen|yes|no|klopt|geen|niet|in orde|ok|oké|goed)\b/i;

/**
 * Splits an inspector's reply into its parts: numbered lines ("1. …"), else lines, else the pieces
 * between sentences, commas and semicolons (a comma between two digits, as in "7,5", does not split).
 *
 * @example
 * splitResponse("hoofdstraat 2, ja, nee"); // ["hoofdstraat 2", "ja", "nee"]
 * splitResponse("1. Kerkstraat 5\n2. ja"); // ["Kerkstraat 5", "ja"]
 */
export function splitResponse(response: string): string[] {
  const lines = response
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const numbered = lines.filter((l) => /^\d+\s*[.):-]\s*/.test(l));
  if (numbered.length >= 2) return numbered.map((l) => l.replace(/^\d+\s*[.):-]\s*/, "").trim()).filter(Boolean);
  if (lines.length >= 2) return lines;
  // sentences (a full stop not inside a number), then semicolons and commas (not inside "7,5")
  return response
    .split(/(?<!\d)[.!?]+\s+|[.!?]+\s+(?=[A-Z\u00C0-\u00DE])/)
    .flatMap((sentence) => sentence.split(/;|,(?!\d)|(?<!\d),/))
    .map((p) => p.trim())
    .filter(Boolean);
}

/** Whether `part` can be the answer to `q`: a yes/no word for a question with options, 8 digits for a KVK number. */
function fits(q: ClarificationQuestion, part: string): boolean {
  if (q.options?.length) {
    const lower = part.toLowerCase();
    return YES_NO.test(lower) || q.options.some((o) => lower.startsWith(o.toLowerCase()));
  }
  if (q.field?.includes("kvk")) return /\d{8}/.test(part.replace(/[\s.-]/g, ""));
  return true;
}

/** "KVK is 12345678", "adres: Markt 1", "naam is Bakkerij Jansen": an answer that says its field. */
const LABELLED: ReadonlyArray<{ field: string; label: RegExp }> = [
  { field: "kvk_number", label: /^(?:het\s+)?(?:kvk|kvk-nummer|kvknummer)(?:[\s-]*nummer)?\s*(?:is|:|=)?\s*/i },
  { field: "address", label: /^(?:het\s+)?adres\s*(?:is|:|=)?\s*/i },
  {
    field: "company_name",
    label: /^(?:de\s+)?(?:bedrijfsnaam|naam(?:\s+van\s+het\s+bedrijf)?|bedrijf)\s*(?:is|:|=)\s*/i,
  },
];
/** A yes or no that may carry more: "ja, schimmel in de opslag". */
const YES_NO_LEAD = /^(ja|nee|yes|no|klopt)\b/i;

/**
 * Maps a reply to the questions it answers — what the offline model sends to
 * `submit_verification_answers`. A KVK number and a street address are found wherever they are said
 * ("KVK is 12345678. Ja, schimmel…"); an answer that names its field ("adres: Markt 1") goes to that
 * field; the rest goes to the remaining questions in order. One sentence may answer several questions
 * (it is split on sentences, lines, numbers, semicolons and commas — a comma between two digits, as in
 * "7,5", does not split). With more parts than questions, extra parts join the answer before them
 * ("Kerkstraat 5, Utrecht" stays one address; "ja, schimmel in de opslag" keeps its description) when
 * the next question cannot take them. A JSON object `{ field: answer }` maps directly.
 *
 * @example
 * mapAnswers([{ question: "KVK?", field: "kvk_number" }, { question: "Overtredingen?", field: "violations_found", options: ["ja", "nee"] }],
 *   "KVK is 12345678. Ja, schimmel in de opslag");
 * // [{ field: "kvk_number", answer: "12345678" }, { field: "violations_found", answer: "Ja, schimmel in de opslag" }]
 */
export function mapAnswers(questions: readonly ClarificationQuestion[], response: string): FieldAnswer[] {
  const asJson = parseObject(response);
  if (asJson) {
    return questions.flatMap((q) => {
      const value = q.field ? asJson[q.field] : undefined;
      return q.field && value !== undefined ? [{ field: q.field, answer: String(value) }] : [];
    });
  }
  const text = response.trim();
  if (!text) return [];
  const fieldOf = (q: ClarificationQuestion, i: number) => q.field ?? `question_${i + 1}`;
  if (questions.length === 1) {
    const q = questions[0] as ClarificationQuestion;
    const labelled = LABELLED.find((l) => l.field === q.field && l.label.test(text));
    const own = labelled ? text.replace(labelled.label, "") : text;
    const typed = q.field?.includes("kvk") ? kvkNumber(own) : q.field === "address" ? streetAddress(own) : undefined;
    return [{ field: fieldOf(q, 0), answer: typed ?? own }];
  }
  let parts = splitResponse(text);
  const answers = new Map<number, string>();
  const take = (i: number, answer: string, used: (part: string) => boolean) => {
    answers.set(i, answer);
    parts = parts.filter((p) => !used(p));
  };
  const facts = reportFacts(parts.join(". "));
  const named: RegExp[] = [];
  for (const [i, q] of questions.entries()) {
    const labelled = LABELLED.find((l) => l.field === q.field);
    const said = labelled ? parts.find((p) => labelled.label.test(p)) : undefined;
    if (said && labelled && q.field === "address") {
      // "Het adres is Lange Nieuwstraat 12 in Utrecht", "Adres: Breestraat 8, Leiden": the street and its city
      const from = parts.indexOf(said);
      const value = said.replace(labelled.label, "");
      const address = streetAddress([value, ...parts.slice(from + 1)].join(", ")) ?? value;
      const folded = address.toLowerCase();
      take(i, address, (p) => p === said || (parts.indexOf(p) > from && folded.includes(p.toLowerCase())));
    } else if (said && labelled) {
      const value = said.replace(labelled.label, "");
      take(i, q.field === "kvk_number" ? (kvkNumber(value) ?? value) : value, (p) => p === said);
    } else if (q.field?.includes("kvk")) {
      const part = parts.find((p) => kvkNumber(p) !== undefined);
      if (part) take(i, kvkNumber(part) as string, (p) => p === part);
    } else if (q.field === "hygiene_ok" || q.field === "violations_found") {
      // "de hygiëne was in orde", "overtredingen nee", "één overtreding: de koelkast was 9 graden"
      const value = facts[q.field];
      if (typeof value === "boolean") {
        const details = q.field === "violations_found" ? facts.violation_details : undefined;
        answers.set(i, `${value ? "ja" : "nee"}${typeof details === "string" ? `, ${details}` : ""}`);
        named.push(q.field === "hygiene_ok" ? /hygi[eë]ne/i : /overtreding/i);
      }
    } else if (q.field === "address") {
      const address = streetAddress(parts.join(", "));
      const folded = address?.toLowerCase();
      if (address && folded) take(i, address, (p) => folded.includes(p.toLowerCase()));
    }
  }
  // the parts that said those yes/no answers in words are used up
  parts = parts.filter((part) => !named.some((topic) => topic.test(part)));
  const open = questions.map((q, i) => ({ q, i })).filter(({ i }) => !answers.has(i));
  let p = 0;
  for (const [k, { q, i }] of open.entries()) {
    if (p >= parts.length) break;
    let answer = parts[p++] as string;
    const next = open[k + 1]?.q;
    const extendable = (!q.options?.length && !q.field?.includes("kvk")) || YES_NO_LEAD.test(answer);
    while (extendable && p < parts.length && parts.length - p > open.length - k - 1) {
      if (next && fits(next, parts[p] as string)) break;
      answer += `, ${parts[p++]}`;
    }
    answers.set(i, answer);
  }
  return questions.flatMap((q, i) => {
    const answer = answers.get(i);
    return answer === undefined ? [] : [{ field: fieldOf(q, i), answer }];
  });
}

function parseObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value = JSON.parse(trimmed) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
