/**
 * Which answer form the interrupt panel shows. Interrupt values are recognised by shape — an approval
 * (yes/no), a quiz question with lettered options, a clarification or any other question (text) — and
 * static breakpoints by the state: twi-author's review (approve / request a revision / reject) and final
 * approval. Anything else still gets the generic JSON or text answer.
 */

/** The form for one interrupt value. */
export type InterruptForm =
  | { kind: "approval"; question: string }
  | { kind: "questions"; question: string; questions: Array<{ question: string; options: string[] }> }
  | { kind: "choice"; question: string; options: Array<{ key: string; label: string }> }
  | { kind: "text"; question: string };

const APPROVAL_WORDS = /\b(approve|approval|publish|deploy|confirm|proceed|accept)\b/i;
const OPTION_LINE = /^\s*([A-Ha-h])[).]\s+(.+)$/gm;
const QUESTION_KEYS = ["question", "question_text", "display_text", "message", "prompt", "text"];

/**
 * Recognises an interrupt value's form.
 *
 * @example
 * interruptForm({ gate: "plan", question: "Approve the plan?" }); // { kind: "approval", question: "Approve the plan?" }
 * interruptForm({ action: "answer_question", question_text: "¿…?\nA) uno\nB) dos" }).kind; // "choice"
 */
export function interruptForm(value: unknown): InterruptForm {
  if (typeof value === "string") return { kind: "text", question: value };
  const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const key = QUESTION_KEYS.find((k) => typeof v[k] === "string" && v[k] !== "");
  const question = key ? (v[key] as string) : "Answer";
  const options = [...question.matchAll(OPTION_LINE)].map((m) => ({
    key: (m[1] as string).toUpperCase(),
    label: (m[2] as string).trim(),
  }));
  if (options.length >= 2) return { kind: "choice", question, options };
  const questions = questionList(v.questions);
  if (questions) return { kind: "questions", question: "Please answer these questions", questions };
  if (typeof v.gate === "string" || APPROVAL_WORDS.test(question)) return { kind: "approval", question };
  return { kind: "text", question };
}

/** A list of `{ question, options? }` (inspection-reporter's clarification request), or undefined. */
function questionList(value: unknown): Array<{ question: string; options: string[] }> | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const out: Array<{ question: string; options: string[] }> = [];
  for (const q of value) {
    const question = (q as { question?: unknown })?.question;
    if (typeof question !== "string") return undefined;
    const options = (q as { options?: unknown }).options;
    out.push({ question, options: Array.isArray(options) ? options.map(String) : [] });
  }
  return out;
}

/**
 * One reply to several questions, in their order, as the clarification flows expect it.
 *
 * @example
 * joinAnswers(["hoofdstraat 2", " ja ", "nee"]); // "hoofdstraat 2, ja, nee"
 */
export function joinAnswers(answers: readonly string[]): string {
  return answers.map((a) => a.trim()).join(", ");
}

/**
 * Reads the generic answer box: JSON when it parses as JSON, otherwise the text itself.
 *
 * @example
 * parseFreeAnswer('{"approved":true}'); // { approved: true }
 * parseFreeAnswer("add PPE"); // "add PPE"
 */
export function parseFreeAnswer(text: string): unknown {
  const t = text.trim();
  if (/^([[{"]|true$|false$|null$|-?\d)/.test(t)) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** The form for a pause at a static breakpoint. */
export type BreakpointForm =
  | { kind: "twi-review"; node: string }
  | { kind: "twi-final-approval"; node: string }
  | { kind: "continue"; node: string };

/**
 * Recognises a breakpoint from the next nodes and the state.
 *
 * @example
 * breakpointForm(["review"], { status: "review_needed", draft: "…", revision_feedback: null }).kind; // "twi-review"
 */
export function breakpointForm(next: readonly string[], values: Record<string, unknown>): BreakpointForm {
  const node = next[0] ?? "";
  const twi = "status" in values && "draft" in values && "revision_feedback" in values;
  if (twi && node === "review") return { kind: "twi-review", node };
  if (twi && node === "approve" && "approval_timestamp" in values) return { kind: "twi-final-approval", node };
  return { kind: "continue", node };
}

/**
 * The state update of a twi-author decision (the seed's resume updates).
 *
 * @example
 * twiDecision("revision", "add PPE", new Date(0)); // { status: "revision_requested", revision_feedback: "add PPE" }
 */
export function twiDecision(
  decision: "approve" | "revision" | "reject" | "final",
  feedback: string,
  now: Date,
): Record<string, unknown> {
  if (decision === "approve") return { status: "approved" };
  if (decision === "reject") return { status: "rejected" };
  if (decision === "final") return { status: "approved", approval_timestamp: now.toISOString() };
  return { status: "revision_requested", revision_feedback: feedback.trim() };
}

/**
 * Links to documents in a state: string values that are http(s) URLs of a PDF, or keys ending in
 * `_url`/`url`.
 *
 * @example
 * documentLinks({ pdf_url: "http://h/a.pdf?sig=1" }); // [{ key: "pdf_url", url: "http://h/a.pdf?sig=1" }]
 */
export function documentLinks(values: Record<string, unknown> | null | undefined): Array<{ key: string; url: string }> {
  const out: Array<{ key: string; url: string }> = [];
  for (const [key, value] of Object.entries(values ?? {})) {
    if (typeof value !== "string" || !/^https?:\/\//.test(value)) continue;
    if (/url$/i.test(key) || /\.pdf(\?|$)/i.test(value)) out.push({ key, url: value });
  }
  return out;
}

/**
 * The top-level keys whose JSON differs between two states: what a fork should write (writing every key
 * again would append twice to list and message channels).
 *
 * @example
 * changedKeys({ a: 1, b: [1] }, { a: 2, b: [1] }); // { a: 2 }
 */
export function changedKeys(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after)) if (JSON.stringify(before[k]) !== JSON.stringify(v)) out[k] = v;
  return out;
}
