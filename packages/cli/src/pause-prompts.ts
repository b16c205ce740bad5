/**
 * What the terminal asks when a run pauses, and how a typed line becomes the answer. Interrupt values
 * are recognised by shape: a yes/no approval (`{ question: "Approve the plan?" }`, `{ gate }`), a quiz
 * question with lettered options (the tutor's `{ action: "answer_question", question_text }`), or free
 * text. Static breakpoints have no value; twi-author's two pauses (before `review` and `approve`) are
 * recognised from the state and get their decisions, any other breakpoint takes a JSON state update.
 */

/** How an interrupt is answered. */
export type AnswerKind =
  | { kind: "yes-no"; question: string }
  | { kind: "questions"; question: string; questions: Array<{ question: string; options: string[] }> }
  | { kind: "choice"; question: string; options: Array<{ key: string; label: string }> }
  | { kind: "text"; question: string };

const APPROVAL_WORDS = /\b(approve|approval|publish|deploy|confirm|proceed|accept)\b/i;
const OPTION_LINE = /^\s*([A-Ha-h])[).]\s+(.+)$/gm;

/**
 * Recognises the shape of an interrupt's value.
 *
 * @example
 * answerKindOf({ question: "Publish this?", draft: "…" }); // { kind: "yes-no", question: "Publish this?" }
 * answerKindOf("What is the site address?"); // { kind: "text", question: "What is the site address?" }
 */
export function answerKindOf(value: unknown): AnswerKind {
  if (typeof value === "string") return { kind: "text", question: value };
  const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const question =
    firstString(v, ["question", "question_text", "display_text", "message", "prompt", "text"]) ?? "Your answer";
  const options = [...question.matchAll(OPTION_LINE)].map((m) => ({
    key: (m[1] as string).toUpperCase(),
    label: (m[2] as string).trim(),
  }));
  if (options.length >= 2) return { kind: "choice", question, options };
  const questions = questionList(v.questions);
  if (questions) return { kind: "questions", question, questions };
  if (typeof v.gate === "string" || APPROVAL_WORDS.test(question)) return { kind: "yes-no", question };
  return { kind: "text", question };
}

/** A list of `{ question, options? }` (a clarification request), or undefined. */
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

function firstString(v: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) if (typeof v[k] === "string" && v[k] !== "") return v[k] as string;
  return undefined;
}

/**
 * Turns a typed line into the resume value: yes/no words become booleans for approvals, an option
 * letter stays a letter, JSON (`{…}`, `[…]`, `"…"`) is parsed, anything else is the text itself.
 *
 * @example
 * parseAnswer({ kind: "yes-no", question: "Approve?" }, "y"); // true
 * parseAnswer({ kind: "text", question: "Changes?" }, '{"note":"x"}'); // { note: "x" }
 */
export function parseAnswer(kind: AnswerKind, line: string): unknown {
  const text = line.trim();
  if (kind.kind === "yes-no") {
    if (/^(y|yes|true|ok|approve|approved)$/i.test(text)) return true;
    if (/^(n|no|false|reject|rejected)$/i.test(text)) return false;
  }
  if (kind.kind === "choice") {
    const key = text.toUpperCase();
    if (kind.options.some((o) => o.key === key)) return key;
  }
  if (/^[[{"]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * The hint shown after a question.
 *
 * @example
 * answerHint({ kind: "yes-no", question: "Approve?" }); // "y/n"
 */
export function answerHint(kind: AnswerKind): string {
  if (kind.kind === "yes-no") return "y/n";
  if (kind.kind === "choice") return `${kind.options.map((o) => o.key).join("/")} or text`;
  if (kind.kind === "questions") return "one answer per question";
  return "text or JSON";
}

/** A pause at a static breakpoint (no interrupt value), as the terminal offers it. */
export type BreakpointKind =
  | { kind: "twi-review"; node: string }
  | { kind: "twi-final-approval"; node: string }
  | { kind: "state-update"; node: string };

/**
 * Recognises a breakpoint from the nodes that run next and the state's keys.
 *
 * @example
 * breakpointKindOf(["review"], { status: "review_needed", draft: "…", revision_feedback: null }); // { kind: "twi-review", node: "review" }
 */
export function breakpointKindOf(next: readonly string[], values: Record<string, unknown>): BreakpointKind {
  const node = next[0] ?? "";
  const twi = "status" in values && "draft" in values && "revision_feedback" in values;
  if (twi && node === "review") return { kind: "twi-review", node };
  if (twi && node === "approve" && "approval_timestamp" in values) return { kind: "twi-final-approval", node };
  return { kind: "state-update", node };
}

/** What a reviewer's line means at a twi-author pause: the state update to apply, or stop. */
export type BreakpointAnswer = { update: Record<string, unknown> } | { stop: true } | { askFeedback: true };

/**
 * Turns a line typed at a breakpoint into a state update. At twi-author's review: `a` approve, `r`
 * request a revision (feedback asked next, or `r <feedback>` at once), `x` reject; at its final
 * approval: `y` approve, `n` stop. Elsewhere: a JSON object of state keys, or empty to go on unchanged.
 * `q` stops everywhere.
 *
 * @example
 * breakpointAnswer({ kind: "twi-review", node: "review" }, "r add PPE", () => new Date(0)); // { update: { status: "revision_requested", revision_feedback: "add PPE" } }
 */
export function breakpointAnswer(kind: BreakpointKind, line: string, now: () => Date): BreakpointAnswer | undefined {
  const text = line.trim();
  if (/^(q|quit|exit)$/i.test(text)) return { stop: true };
  if (kind.kind === "twi-review") {
    const m = /^(a|approve|r|revise|revision|x|reject)\b\s*(.*)$/i.exec(text);
    if (!m) return undefined;
    const word = (m[1] as string).toLowerCase();
    if (word.startsWith("a")) return { update: { status: "approved" } };
    if (word.startsWith("x") || word === "reject") return { update: { status: "rejected" } };
    const feedback = (m[2] as string).trim();
    return feedback ? { update: { status: "revision_requested", revision_feedback: feedback } } : { askFeedback: true };
  }
  if (kind.kind === "twi-final-approval") {
    if (/^(y|yes|approve|a)$/i.test(text)) {
      return { update: { status: "approved", approval_timestamp: now().toISOString() } };
    }
    if (/^(n|no)$/i.test(text)) return { stop: true };
    return undefined;
  }
  if (text === "") return { update: {} };
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      return { update: parsed as Record<string, unknown> };
    }
  } catch {
    // not JSON: asked again
  }
  return undefined;
}

/**
 * The question asked at a breakpoint.
 *
 * @example
 * breakpointQuestion({ kind: "twi-final-approval", node: "approve" }); // "Final approval: generate the PDF? (y/n)"
 */
export function breakpointQuestion(kind: BreakpointKind): string {
  if (kind.kind === "twi-review") return "Review: [a]pprove, [r]equest a revision, or reject [x]?";
  if (kind.kind === "twi-final-approval") return "Final approval: generate the PDF? (y/n)";
  return `Paused before ${kind.node}. A JSON state update, or empty to go on (q stops):`;
}
