import { type AssistantMessage, type Message, messageText } from "@trellis/models";
import { type ClarificationQuestion, formatQuestions } from "../agents/request-clarification.js";

/** The tool the reporting agent pauses in; its calls show as questions, its results as the user's answers. */
export const CLARIFICATION_TOOL = "request_clarification";

/** A tool call of an AG-UI assistant message. */
export interface AgUiToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** An AG-UI message (`@ag-ui/core` 1.0: user, assistant, tool). */
export type AgUiMessage =
  | { id: string; role: "user"; content: string }
  | { id: string; role: "assistant"; content?: string; toolCalls?: AgUiToolCall[] }
  | { id: string; role: "tool"; toolCallId: string; content: string; error?: string };

/**
 * The id of the assistant message that shows the questions of a `request_clarification` call.
 *
 * @example
 * clarificationMessageId("call_1"); // "clarification-call_1"
 */
export function clarificationMessageId(toolCallId: string): string {
  return `clarification-${toolCallId}`;
}

/**
 * The id of the user message that shows the answer to a `request_clarification` call.
 *
 * @example
 * answerMessageId("call_1"); // "answer-call_1"
 */
export function answerMessageId(toolCallId: string): string {
  return `answer-${toolCallId}`;
}

/**
 * The conversation as an AG-UI client shows it: the thread's messages in AG-UI's shape, with each
 * `request_clarification` call shown as an assistant message with the numbered questions
 * (`clarification-<call id>`) and its result — the inspector's reply — as a user message
 * (`answer-<call id>`), so that questions and answers read as what they were: a chat. System messages
 * are left out. The questions of a pause still pending are in it too, without an answer.
 *
 * @example
 * agUiMessages(view.messages).at(-1); // { id: "clarification-call_3", role: "assistant", content: "1. Wat is het adres…" }
 */
export function agUiMessages(messages: readonly Message[]): AgUiMessage[] {
  const clarifications = new Set<string>();
  const out: AgUiMessage[] = [];
  for (const m of messages) {
    if (m.role === "user") out.push({ id: m.id, role: "user", content: messageText(m) });
    else if (m.role === "assistant") out.push(...assistant(m, clarifications));
    else if (m.role === "tool") {
      if (clarifications.has(m.toolCallId)) {
        out.push({ id: answerMessageId(m.toolCallId), role: "user", content: m.content });
      } else {
        out.push({
          id: m.id,
          role: "tool",
          toolCallId: m.toolCallId,
          content: m.content,
          ...(m.status === "error" ? { error: m.content } : {}),
        });
      }
    }
  }
  return out;
}

function assistant(m: AssistantMessage, clarifications: Set<string>): AgUiMessage[] {
  const out: AgUiMessage[] = [];
  const calls = (m.toolCalls ?? []).filter((c) => c.name !== CLARIFICATION_TOOL);
  if (m.content.trim() || calls.length > 0) {
    out.push({
      id: m.id,
      role: "assistant",
      ...(m.content.trim() ? { content: m.content } : {}),
      ...(calls.length > 0
        ? {
            toolCalls: calls.map((c) => ({
              id: c.id,
              type: "function" as const,
              function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
            })),
          }
        : {}),
    });
  }
  for (const call of m.toolCalls ?? []) {
    if (call.name !== CLARIFICATION_TOOL) continue;
    clarifications.add(call.id);
    const questions = ((call.args as { questions?: ClarificationQuestion[] } | undefined)?.questions ?? []).slice();
    out.push({ id: clarificationMessageId(call.id), role: "assistant", content: formatQuestions(questions) });
  }
  return out;
}
