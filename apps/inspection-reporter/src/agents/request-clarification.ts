import {
  editedActionOf,
  hitlRequest,
  type ReviewDecisionType,
  readDecisions,
  type ToolReviewRequest,
} from "@trellis/agents";
import { interrupt } from "@trellis/core";
import { type Tool, tool } from "@trellis/models";
import { askText, type TextPause } from "@trellis/protocol";
import * as z from "zod";

/** One verification question, as `verify_inspection_data` returns it. */
export interface ClarificationQuestion {
  question: string;
  field?: string | undefined;
  importance?: string | undefined;
  options?: string[] | undefined;
  [key: string]: unknown;
}

/**
 * The value `request_clarification` pauses the graph with (seed, Phase 1), also in LangChain's HITL
 * request shape (`action_requests` / `review_configs`, both spellings) so agent-chat-ui and `useStream`
 * pages offer controls: edit (the answers in the action's edited args: `answer`, or one arg per field),
 * reject with a message (the message is the answer), reject without one (stop verifying; the draft is
 * kept), and — when every question only asks to confirm a value already noted — approve (confirm them).
 */
export interface ClarificationRequest extends ToolReviewRequest, TextPause {
  type: "clarification_request";
  questions: ClarificationQuestion[];
  /** The numbered questions, as the frontend shows them (after the reason when asked again). */
  display_text: string;
  /** Why the last reply was not taken as an answer ("wacht even", a question back); the questions stand. */
  not_an_answer?: string;
}

/**
 * The action name of the clarification in LangChain's HITL request.
 *
 * @example
 * request.action_requests[0]?.name; // "request_clarification"
 */
export const CLARIFICATION_ACTION = "request_clarification";

/** A reply that asks for time or asks back instead of answering (Dutch, as inspectors say it). */
const NON_ANSWER = new RegExp(
  "^(?:(?:eh+|uh+|hm+|oh|oké|ok|sorry|pardon|nou)[\\s,.!]*)*(?:" +
    [
      "wacht(?:\\s+(?:even|eens|ff|effe|heel even|een momentje|een moment|een seconde|een sec|maar))?",
      "(?:een\\s+)?moment(?:je)?(?:\\s+(?:graag|alstublieft|aub))?",
      "(?:heel\\s+)?even\\s+(?:wachten|geduld|kijken)",
      "ogenblik(?:je)?",
      "sec(?:onde|ondje)?",
      "hou?\\s+even",
      "effe\\s+wachten",
      "ik\\s+(?:kijk|zoek)\\s+(?:het\\s+)?(?:even\\s+)?(?:na|op)",
      "ik\\s+moet\\s+(?:het\\s+)?(?:even\\s+)?(?:nakijken|opzoeken|checken|navragen)",
      "wat\\s+(?:bedoel\\s+je|bedoelt\\s+u|zeg\\s+je|zegt\\s+u|vraag\\s+je|vraagt\\s+u)(?:\\s+(?:daarmee|precies|met\\s+.+))?",
      "hoe\\s+bedoel\\s+je|hoe\\s+bedoelt\\s+u",
      "wat\\s+is\\s+(?:de\\s+)?vraag|welke\\s+vraag",
      "(?:kun\\s+je|kunt\\s+u|wil\\s+je|wilt\\s+u)\\s+(?:dat|de\\s+vragen?|het)\\s+(?:nog\\s+eens\\s+|nog\\s+een\\s+keer\\s+)?(?:herhalen|uitleggen)",
      "herhaal\\s+(?:de\\s+vragen?|dat|het)",
      "nog\\s+een\\s+keer",
      "ik\\s+(?:begrijp|snap)\\s+(?:de\\s+vragen?|het|dat)\\s+niet",
      "sorry|pardon|huh|wat|hè|he",
    ].join("|") +
    ")[\\s?!.…]*$",
  "i",
);
/** A reply that starts by asking for time; what follows is group 1. */
const WAIT_FIRST =
  /^(?:wacht(?:\s+(?:even|eens|ff|effe))?|momentje|(?:een\s+)?moment(?:je)?|ogenblik(?:je)?|even\s+wachten|sec(?:onde|ondje)?|hou?\s+even)\b[\s,.;:!…-]+(.*)$/i;
/** A question back: starts with a question word and ends with a question mark. */
const QUESTION_BACK =
  /^(?:wat|wie|waar|welke|welk|waarom|hoe|wanneer|kun|kunt|mag|moet|bedoel|bedoelt|is het|gaat het|hoezo)\b[^0-9]*\?\s*$/i;

/**
 * Why a reply to the clarification is not an answer — the inspector asks for time ("wacht even") or
 * asks back ("wat bedoel je?") — or undefined when it is one. Such a reply is not stored: the
 * questions are asked again.
 *
 * @example
 * notAnAnswer("Wacht even"); // "Geen probleem, ik wacht. …"
 * notAnAnswer("Molenweg 14, ja, nee"); // undefined
 */
export function notAnAnswer(reply: string): string | undefined {
  const text = reply.trim();
  // "momentje, ik pak mijn aantekeningen": asking for time, with no answer in what follows
  const waiting = WAIT_FIRST.exec(text);
  if (waiting && !/\d|\b(ja|nee|wel|geen|klopt)\b/i.test(waiting[1] ?? "")) {
    return "Geen probleem, neem de tijd; ik heb niets genoteerd. Ik wacht op uw antwoord op:";
  }
  if (!NON_ANSWER.test(text) && !QUESTION_BACK.test(text)) return undefined;
  return /\?|bedoel|snap|begrijp|herhaal|vraag|uitleggen|huh|wat|pardon|sorry|hè/i.test(text)
    ? `«${shorten(text)}» is geen antwoord, dus ik heb niets genoteerd. Ik bedoel de volgende vragen; beantwoord ze in één bericht (bijvoorbeeld per regel of met komma's ertussen):`
    : `Geen probleem, neem de tijd; ik heb niets genoteerd. Ik wacht op uw antwoord op:`;
}

function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** Questions that only ask to confirm a value already noted ("… (Ik heb "X" genoteerd; klopt dat?)"). */
function onlyConfirmations(questions: readonly ClarificationQuestion[]): boolean {
  return questions.length > 0 && questions.every((q) => /genoteerd; klopt dat\?\)$/.test(q.question ?? ""));
}

function allowedDecisions(questions: readonly ClarificationQuestion[]): ReviewDecisionType[] {
  return onlyConfirmations(questions) ? ["approve", "edit", "reject"] : ["edit", "reject"];
}

const HITL_HELP =
  "Bewerken (edit): vul `answer` met uw antwoord, of vul per veld het antwoord in. Afwijzen met een bericht " +
  "(reject + message): het bericht is uw antwoord. Afwijzen zonder bericht: stoppen met verifiëren (het concept blijft bewaard).";
const APPROVE_HELP = " Goedkeuren (approve): de genoteerde gegevens kloppen.";

/**
 * The interrupt value that asks `questions`, with `reason` first when the last reply was not an answer.
 *
 * @example
 * clarificationRequest([{ question: "Wat is het adres?", field: "address" }]).display_text; // "1. Wat is het adres?"
 */
export function clarificationRequest(questions: ClarificationQuestion[], reason?: string): ClarificationRequest {
  const numbered = formatQuestions(questions);
  const args: Record<string, unknown> = { answer: "" };
  for (const q of questions) if (q.field) args[q.field] = "";
  const allowed = allowedDecisions(questions);
  const display = reason ? `${reason}\n${numbered}` : numbered;
  return {
    type: "clarification_request",
    questions,
    display_text: display,
    // declared as a text question, so the studio and the CLI keep asking for a typed reply (the HITL keys
    // below are for stock UIs, which read only those)
    ...askText(display),
    ...(reason ? { not_an_answer: reason } : {}),
    ...hitlRequest([
      {
        name: CLARIFICATION_ACTION,
        args,
        description: `${reason ? `${reason}\n` : ""}${numbered}\n\n${HITL_HELP}${allowed.includes("approve") ? APPROVE_HELP : ""}`,
        allowedDecisions: allowed,
      },
    ]),
  };
}

/**
 * What a resume value answers: the reply text for the reporting agent, or why it is no answer (the
 * questions are asked again). A string is the inspector's reply; `{ decisions: [...] }` is read as
 * LangChain's HITL decisions; any other value is passed on as JSON, as before.
 *
 * @example
 * readClarificationReply({ decisions: [{ type: "reject", message: "Molenweg 14, ja, nee" }] }, questions); // { reply: "Molenweg 14, ja, nee" }
 */
export function readClarificationReply(
  raw: unknown,
  questions: readonly ClarificationQuestion[],
): { reply: string } | { again: string } {
  if (typeof raw === "string") {
    const why = notAnAnswer(raw);
    return why ? { again: why } : { reply: raw };
  }
  if (typeof raw !== "object" || raw === null || !("decisions" in raw)) return { reply: JSON.stringify(raw) };
  const read = readDecisions(raw, [{ name: CLARIFICATION_ACTION, allowedDecisions: allowedDecisions(questions) }]);
  if (!read.ok) return { again: `${read.reason} Ik stel de vragen opnieuw:` };
  const decision = read.decisions[0];
  if (decision?.type === "approve") {
    return { reply: JSON.stringify(Object.fromEntries(questions.flatMap((q) => (q.field ? [[q.field, "ja"]] : [])))) };
  }
  if (decision?.type === "reject" || decision?.type === "respond") {
    const message = decision.message?.trim() ?? "";
    if (message === "") return { reply: "stop" };
    const why = notAnAnswer(message);
    return why ? { again: why } : { reply: message };
  }
  const args = decision ? (editedActionOf(decision)?.args ?? {}) : {};
  const answer = typeof args.answer === "string" ? args.answer.trim() : "";
  if (answer !== "") {
    const why = notAnAnswer(answer);
    return why ? { again: why } : { reply: answer };
  }
  const byField = Object.fromEntries(
    questions.flatMap((q) => {
      const value = q.field ? args[q.field] : undefined;
      return q.field && value !== undefined && String(value).trim() !== "" ? [[q.field, String(value).trim()]] : [];
    }),
  );
  if (Object.keys(byField).length === 0) {
    return { again: "Een bewerking (edit) zonder antwoord: vul `answer` of een veld in. Ik stel de vragen opnieuw:" };
  }
  return { reply: JSON.stringify(byField) };
}

const questionSchema = z.looseObject({
  question: z.string().describe("The question to ask"),
  field: z.string().optional().describe("The report field it fills"),
  importance: z.string().optional().describe("critical, high or medium"),
  options: z.array(z.string()).optional().describe("Allowed answers, e.g. ja/nee"),
});

/**
 * The questions as numbered lines: `1. …\n2. …`, exactly as the seed formats them.
 *
 * @example
 * formatQuestions([{ question: "Wat is het adres?" }, { question: "Was de hygiëne in orde?" }]);
 * // "1. Wat is het adres?\n2. Was de hygiëne in orde?"
 */
export function formatQuestions(questions: readonly ClarificationQuestion[]): string {
  return questions.map((q, i) => `${i + 1}. ${q.question ?? ""}`).join("\n");
}

/**
 * True when an interrupt value is a clarification request.
 *
 * @example
 * if (isClarificationRequest(snapshot.interrupts[0]?.value)) show(snapshot.interrupts[0].value.display_text);
 */
export function isClarificationRequest(value: unknown): value is ClarificationRequest {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === "clarification_request" &&
    Array.isArray((value as { questions?: unknown }).questions) &&
    typeof (value as { display_text?: unknown }).display_text === "string"
  );
}

/**
 * `request_clarification` (seed, Phase 1): formats the questions, pauses the graph with
 * `interrupt({ type: "clarification_request", questions, display_text })`, and returns the user's
 * response when the thread is resumed with `new Command({ resume: response })`. Only the reporting
 * agent gets this tool.
 *
 * @example
 * const reporting = createReactAgent({ model, tools: [requestClarification, ...inspectionTools] });
 */
export const requestClarification: Tool<{ questions: ClarificationQuestion[] }, string> = tool({
  name: "request_clarification",
  description:
    "Request clarification from the user during report creation. Use this tool when you need additional " +
    "information from the inspector to complete the report. The graph will pause and wait for the user's " +
    "response before continuing. `questions`: the question objects from verify_inspection_data (each has " +
    "question, field, importance and optional options). Returns the user's response to the questions.",
  schema: z.object({ questions: z.array(questionSchema).min(1) }),
  fn: ({ questions }) => {
    // Pauses the graph; when resumed, returns the user's response. A reply that is no answer ("wacht
    // even", "wat bedoel je?") is not returned: the same questions are asked again, saying why.
    let read = readClarificationReply(interrupt<unknown>(clarificationRequest(questions)), questions);
    while ("again" in read) {
      read = readClarificationReply(interrupt<unknown>(clarificationRequest(questions, read.again)), questions);
    }
    return read.reply;
  },
}) as Tool<{ questions: ClarificationQuestion[] }, string>;
