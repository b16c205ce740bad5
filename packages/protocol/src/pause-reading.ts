/**
 * The one place an interrupt value is read as a question. Every door — the CLI, the studio, AG-UI —
 * calls {@link readPause} and renders what it returns; none looks at an app's state keys. In order:
 *
 * 1. a declared kind (`pause-request.ts`: `approve`, `choose`, `text`, `form`);
 * 2. LangChain's human-in-the-loop request (`action_requests`/`review_configs`, or the camelCase
 *    spelling), as `createToolNode({ interruptOn })` and the apps' approval pauses emit it → `review`;
 * 3. undeclared values, by shape: a string is text; a question with lettered option lines (`A) …`) is a
 *    choice; a list of `{ question, options? }` is `questions` (answered as one line, joined); a `gate`
 *    or a question about approving is an approval; anything else is text.
 */
import type { FormPause, PauseFormSchema, PauseOption, PauseRequest } from "./pause-request.js";

/**
 * A decision LangChain's human-in-the-loop request allows.
 *
 * @example
 * const pause = readPause(interrupt.value);
 * const allowed: ReviewDecisionType[] = pause.kind === "review" ? pause.actions.flatMap((a) => a.allowedDecisions) : [];
 * const canEdit = allowed.includes("edit");
 */
export type ReviewDecisionType = "approve" | "edit" | "reject" | "respond";

/**
 * One action of a `review` pause.
 *
 * @example
 * const pause = readPause(interrupt.value);
 * const actions: ReviewAction[] = pause.kind === "review" ? pause.actions : [];
 * for (const action of actions) console.log(action.name, action.description, action.args);
 */
export interface ReviewAction {
  name: string;
  args: unknown;
  description: string;
  allowedDecisions: ReviewDecisionType[];
}

/**
 * Several questions answered in one line, in order (`joinAnswers`).
 *
 * @example
 * const pause = readPause(interrupt.value);
 * if (pause.kind === "questions") {
 *   const answers = pause.questions.map((q) => q.options[0] ?? "");
 *   await client.runs.create(threadId, assistantId, { command: { resume: joinAnswers(answers) } });
 * }
 */
export interface QuestionsPause {
  kind: "questions";
  question: string;
  questions: Array<{ question: string; options: string[] }>;
}

/**
 * LangChain's human-in-the-loop request: answered with `{ decisions: [...] }`, one per action.
 *
 * @example
 * const pause = readPause(interrupt.value);
 * if (pause.kind === "review") {
 *   const resume = reviewAnswer(pause, pause.actions.map(() => ({ type: "approve" })));
 *   await client.runs.create(threadId, assistantId, { command: { resume } });
 * }
 */
export interface ReviewPause {
  kind: "review";
  question: string;
  actions: ReviewAction[];
}

/**
 * How a door asks: a declared {@link PauseRequest}, or what an undeclared value was read as.
 *
 * @example
 * const pause: Pause = readPause(interrupt.value);
 * console.log(pause.question, pauseHint(pause));
 * const resume = parseTypedAnswer(pause, await readLine());
 */
export type Pause = PauseRequest | QuestionsPause | ReviewPause;

const KINDS = new Set(["approve", "choose", "text", "form"]);
const DECISIONS = new Set<string>(["approve", "edit", "reject", "respond"]);
const APPROVAL_WORDS = /\b(approve|approval|publish|deploy|confirm|proceed|accept)\b/i;
const OPTION_LINE = /^\s*([A-Ha-h])[).]\s+(.+)$/gm;
const QUESTION_KEYS = ["question", "question_text", "display_text", "message", "prompt", "text"];

/**
 * Reads an interrupt's value as the question a door asks.
 *
 * @example
 * readPause({ kind: "approve", question: "Deploy?" }); // { kind: "approve", question: "Deploy?" }
 * readPause({ question: "Publish this?" }).kind; // "approve"
 * readPause({ question_text: "Q\nA) x\nB) y" }).kind; // "choose"
 * readPause("What is the address?"); // { kind: "text", question: "What is the address?" }
 */
export function readPause(value: unknown): Pause {
  if (typeof value === "string") return { kind: "text", question: value };
  const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const declared = declaredPause(v);
  if (declared) return declared;
  const review = reviewPause(v);
  if (review) return review;
  const key = QUESTION_KEYS.find((k) => typeof v[k] === "string" && v[k] !== "");
  const question = key ? (v[key] as string) : "Your answer";
  const options = [...question.matchAll(OPTION_LINE)].map((m) => ({
    key: (m[1] as string).toUpperCase(),
    label: (m[2] as string).trim(),
  }));
  if (options.length >= 2) return { kind: "choose", question, options };
  const questions = questionList(v.questions);
  if (questions) return { kind: "questions", question: key ? question : "Please answer these questions", questions };
  if (typeof v.gate === "string" || APPROVAL_WORDS.test(question)) return { kind: "approve", question };
  return { kind: "text", question };
}

function declaredPause(v: Record<string, unknown>): PauseRequest | undefined {
  if (typeof v.kind !== "string" || !KINDS.has(v.kind) || typeof v.question !== "string") return undefined;
  const question = v.question;
  if (v.kind === "approve")
    return v.details === undefined ? { kind: "approve", question } : { kind: "approve", question, details: v.details };
  if (v.kind === "text") return { kind: "text", question };
  if (v.kind === "choose") {
    const options = Array.isArray(v.options) ? v.options.map(optionOf).filter((o) => o !== undefined) : [];
    return options.length > 0 ? { kind: "choose", question, options } : { kind: "text", question };
  }
  const schema = v.schema as PauseFormSchema | undefined;
  if (schema && typeof schema === "object" && typeof schema.properties === "object" && schema.properties !== null) {
    return { kind: "form", question, schema };
  }
  return { kind: "text", question };
}

function optionOf(o: unknown): PauseOption | undefined {
  if (typeof o === "string") return { key: o, label: o };
  const r = o as { key?: unknown; label?: unknown } | null;
  if (r && typeof r.key === "string") return { key: r.key, label: typeof r.label === "string" ? r.label : r.key };
  return undefined;
}

function reviewPause(v: Record<string, unknown>): ReviewPause | undefined {
  const requests = (v.action_requests ?? v.actionRequests) as unknown;
  const configs = (v.review_configs ?? v.reviewConfigs) as unknown;
  if (!Array.isArray(requests) || requests.length === 0) return undefined;
  const allowedByName = new Map<string, ReviewDecisionType[]>();
  for (const c of Array.isArray(configs) ? configs : []) {
    const r = c as Record<string, unknown>;
    const name = (r.action_name ?? r.actionName) as unknown;
    const allowed = (r.allowed_decisions ?? r.allowedDecisions) as unknown;
    if (typeof name === "string" && Array.isArray(allowed)) {
      allowedByName.set(
        name,
        allowed.filter((d): d is ReviewDecisionType => typeof d === "string" && DECISIONS.has(d)),
      );
    }
  }
  const actions: ReviewAction[] = [];
  for (const r of requests) {
    const a = r as { name?: unknown; args?: unknown; description?: unknown };
    if (typeof a?.name !== "string") return undefined;
    actions.push({
      name: a.name,
      args: a.args ?? {},
      description: typeof a.description === "string" ? a.description : "",
      allowedDecisions: allowedByName.get(a.name) ?? ["approve", "edit", "reject"],
    });
  }
  const first = actions[0] as ReviewAction;
  return { kind: "review", question: first.description.split("\n")[0] || `Review ${first.name}`, actions };
}

function questionList(value: unknown): QuestionsPause["questions"] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const out: QuestionsPause["questions"] = [];
  for (const q of value) {
    const question = (q as { question?: unknown })?.question;
    if (typeof question !== "string") return undefined;
    const options = (q as { options?: unknown }).options;
    out.push({ question, options: Array.isArray(options) ? options.map(String) : [] });
  }
  return out;
}

/**
 * One reply to several questions, in their order, as a `questions` pause is answered.
 *
 * @example
 * joinAnswers(["hoofdstraat 2", " ja ", "nee"]); // "hoofdstraat 2, ja, nee"
 */
export function joinAnswers(answers: readonly string[]): string {
  return answers.map((a) => a.trim()).join(", ");
}

/**
 * Reads a free answer box: JSON when it parses as JSON (objects, arrays, strings, numbers, booleans,
 * null), otherwise the text itself.
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

/**
 * Turns one typed line into the resume value of a pause: yes/no words for an approval, an option key for
 * a choice, `approve` / `reject [message]` / `respond <message>` for a single-action review, a JSON
 * object for a form; otherwise JSON when it is JSON (`{…}`, `[…]`, `"…"`), else the text itself.
 *
 * @example
 * parseTypedAnswer({ kind: "approve", question: "Deploy?" }, "y"); // true
 * parseTypedAnswer({ kind: "text", question: "Changes?" }, '{"note":"x"}'); // { note: "x" }
 */
export function parseTypedAnswer(pause: Pause, line: string): unknown {
  const text = line.trim();
  if (pause.kind === "approve") {
    if (/^(y|yes|true|ok|approve|approved)$/i.test(text)) return true;
    if (/^(n|no|false|reject|rejected)$/i.test(text)) return false;
  }
  if (pause.kind === "choose") {
    const match = pause.options.find((o) => o.key.toLowerCase() === text.toLowerCase());
    if (match) return match.key;
  }
  if (pause.kind === "review" && pause.actions.length === 1) {
    const m = /^(approve|a|reject|x|respond|edit)\b\s*([\s\S]*)$/i.exec(text);
    if (m) return reviewAnswer(pause, [typedDecision((m[1] as string).toLowerCase(), (m[2] as string).trim())]);
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

function typedDecision(word: string, rest: string): ReviewDecision {
  if (word === "a" || word === "approve") return { type: "approve" };
  if (word === "respond") return { type: "respond", message: rest };
  if (word === "edit") {
    const args = parseFreeAnswer(rest);
    return { type: "edit", args: typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {} };
  }
  return rest ? { type: "reject", message: rest } : { type: "reject" };
}

/**
 * A person's decision on one action of a `review` pause (an edit carries the action's new args).
 *
 * @example
 * const decisions: ReviewDecision[] = [{ type: "approve" }, { type: "edit", args: { to: "ana@example.com" } }];
 * const resume = reviewAnswer(pause, decisions);
 */
export type ReviewDecision =
  | { type: "approve" }
  | { type: "edit"; args: Record<string, unknown> }
  | { type: "reject"; message?: string }
  | { type: "respond"; message: string };

/**
 * The resume value of a `review` pause: LangChain's `{ decisions: [...] }`, one per action in order
 * (an edit as `editedAction: { name, args }`).
 *
 * @example
 * reviewAnswer(pause, [{ type: "reject", message: "add PPE" }]); // { decisions: [{ type: "reject", message: "add PPE" }] }
 */
export function reviewAnswer(pause: ReviewPause, decisions: readonly ReviewDecision[]): { decisions: unknown[] } {
  return {
    decisions: decisions.map((d, i) =>
      d.type === "edit" ? { type: "edit", editedAction: { name: pause.actions[i]?.name ?? "", args: d.args } } : d,
    ),
  };
}

/**
 * The resume value of a `form` pause from its fields as typed (strings): numbers, integers and booleans
 * are converted, empty optional fields left out, JSON fields parsed. Returns the problems instead when a
 * required field is empty or a value does not fit its type.
 *
 * @example
 * formAnswer(pause, { site: "Hoofdstraat 2", visits: "3" }); // { ok: true, value: { site: "Hoofdstraat 2", visits: 3 } }
 */
export function formAnswer(
  pause: FormPause,
  fields: Readonly<Record<string, string>>,
): { ok: true; value: Record<string, unknown> } | { ok: false; problems: string[] } {
  const value: Record<string, unknown> = {};
  const problems: string[] = [];
  const required = new Set(pause.schema.required ?? []);
  for (const [name, field] of Object.entries(pause.schema.properties)) {
    const raw = (fields[name] ?? "").trim();
    if (raw === "") {
      if (required.has(name)) problems.push(`${field.title ?? name} is required.`);
      continue;
    }
    if (field.type === "number" || field.type === "integer") {
      const n = Number(raw);
      if (!Number.isFinite(n) || (field.type === "integer" && !Number.isInteger(n))) {
        problems.push(`${field.title ?? name} must be ${field.type === "integer" ? "a whole number" : "a number"}.`);
      } else value[name] = n;
    } else if (field.type === "boolean") {
      if (!/^(true|false)$/i.test(raw)) problems.push(`${field.title ?? name} must be true or false.`);
      else value[name] = /^true$/i.test(raw);
    } else if (field.type === "object" || field.type === "array") {
      const parsed = parseFreeAnswer(raw);
      if (typeof parsed !== "object" || parsed === null) problems.push(`${field.title ?? name} must be JSON.`);
      else value[name] = parsed;
    } else if (field.enum && !field.enum.map(String).includes(raw)) {
      problems.push(`${field.title ?? name} must be one of ${field.enum.join(", ")}.`);
    } else value[name] = field.enum?.find((e) => String(e) === raw) ?? raw;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

/**
 * The hint a text door shows after a question.
 *
 * @example
 * pauseHint({ kind: "approve", question: "Approve?" }); // "y/n"
 */
export function pauseHint(pause: Pause): string {
  if (pause.kind === "approve") return "y/n";
  if (pause.kind === "choose") return `${pause.options.map((o) => o.key).join("/")} or text`;
  if (pause.kind === "questions") return "one answer per question";
  if (pause.kind === "form") return "a JSON object";
  if (pause.kind === "review") {
    const allowed = pause.actions[0]?.allowedDecisions ?? [];
    const words = allowed.map((d) =>
      d === "reject"
        ? "reject [message]"
        : d === "respond"
          ? "respond <message>"
          : d === "edit"
            ? "edit {json args}"
            : d,
    );
    return pause.actions.length === 1 ? words.join(" | ") : '{"decisions":[…]}';
  }
  return "text or JSON";
}
