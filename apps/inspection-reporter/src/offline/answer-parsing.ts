import type { ClarificationQuestion } from "../agents/request-clarification.js";

/** One answer for `submit_verification_answers`. */
export interface FieldAnswer {
  field: string;
  answer: string;
}

const YES_NO = /^(ja|j|nee|n|neen|yes|no|klopt|geen|niet|in orde|ok|oké|goed)\b/i;

/**
 * Splits an inspector's reply into its parts: numbered lines ("1. …"), else lines, else the pieces
 * between commas and semicolons (a comma between two digits, as in "7,5", does not split).
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
  return response
    .split(/;|,(?!\d)|(?<!\d),/)
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

/**
 * Maps a reply to the questions it answers, in order — what the offline model sends to
 * `submit_verification_answers`. One question takes the whole reply. With more parts than questions,
 * extra parts join the free-text answer before them ("Kerkstraat 5, Utrecht" stays one address) when
 * the next question cannot take them. A JSON object `{ field: answer }` maps directly.
 *
 * @example
 * mapAnswers([{ question: "Adres?", field: "address" }, { question: "Hygiëne ok?", field: "hygiene_ok", options: ["ja", "nee"] }],
 *   "Kerkstraat 5, Utrecht, ja");
 * // [{ field: "address", answer: "Kerkstraat 5, Utrecht" }, { field: "hygiene_ok", answer: "ja" }]
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
  if (questions.length === 1) return [{ field: fieldOf(questions[0] as ClarificationQuestion, 0), answer: text }];
  const parts = splitResponse(text);
  const out: FieldAnswer[] = [];
  let p = 0;
  for (let i = 0; i < questions.length && p < parts.length; i++) {
    const q = questions[i] as ClarificationQuestion;
    let answer = parts[p++] as string;
    const next = questions[i + 1];
    const freeText = !q.options?.length && !q.field?.includes("kvk");
    while (freeText && p < parts.length && parts.length - p > questions.length - i - 1) {
      if (next && fits(next, parts[p] as string)) break;
      answer += `, ${parts[p++]}`;
    }
    out.push({ field: fieldOf(q, i), answer });
  }
  return out;
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
