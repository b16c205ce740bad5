import { interrupt } from "@trellis/core";
import { type Tool, tool } from "@trellis/models";
import * as z from "zod";

/** One verification question, as `verify_inspection_data` returns it. */
export interface ClarificationQuestion {
  question: string;
  field?: string | undefined;
  importance?: string | undefined;
  options?: string[] | undefined;
  [key: string]: unknown;
}

/** The value `request_clarification` pauses the graph with (seed, Phase 1). */
export interface ClarificationRequest {
  type: "clarification_request";
  questions: ClarificationQuestion[];
  /** The numbered questions, as the frontend shows them. */
  display_text: string;
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
    const request: ClarificationRequest = {
      type: "clarification_request",
      questions,
      display_text: formatQuestions(questions),
    };
    // Pauses the graph; when resumed, returns the user's response.
    const userResponse = interrupt<unknown>(request);
    return typeof userResponse === "string" ? userResponse : JSON.stringify(userResponse);
  },
}) as Tool<{ questions: ClarificationQuestion[] }, string>;
