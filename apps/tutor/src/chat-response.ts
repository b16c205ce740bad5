import type { InvokeResult } from "@trellis/core";
import type { Message } from "@trellis/models";
import type { subjectStateSchema } from "./state.js";
import type { InterruptInfo } from "./test-session/test-graph.js";

/**
 * The seed's `ChatResponse`, plus the chain-of-thought of advanced answers when there is one.
 *
 * @example
 * const r: ChatResponse = { message: "Según los apuntes…", interrupted: false, interrupt_info: null };
 */
export interface ChatResponse {
  message: string;
  interrupted: boolean;
  interrupt_info: InterruptInfo | null;
  /** The `<thinking>` of an advanced answer (Trellis addition; absent otherwise). */
  thinking?: string;
}

/**
 * Turns a graph result into the seed's `ChatResponse`: the last assistant message with text, and the
 * first pending interrupt's payload when the run paused. While a test is paused its messages are still
 * inside the subgraph, so the caller passes them as `pausedMessages` (the question and the feedback on
 * the previous answer live there).
 *
 * @example
 * toChatResponse(await agent.callAgent("Hola", "t1", "iv")).interrupted; // false
 */
export function toChatResponse(
  result: InvokeResult<typeof subjectStateSchema>,
  pausedMessages?: readonly Message[],
): ChatResponse {
  const pending = result.__interrupt__?.[0];
  const response: ChatResponse = {
    message: lastAiMessage(pending && pausedMessages ? pausedMessages : result.messages),
    interrupted: pending !== undefined,
    interrupt_info: pending ? seedInterruptInfo(pending.value) : null,
  };
  if (!pending && result.thinking) response.thinking = result.thinking;
  return response;
}

function lastAiMessage(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "assistant" && m.content.trim() !== "") return m.content;
  }
  return "";
}

/** The keys of LangChain's HITL request the pause also carries, for stock UIs; not part of the seed's shape. */
const HITL_KEYS = new Set(["actionRequests", "reviewConfigs", "action_requests", "review_configs"]);

/**
 * A pause's value as the seed's `interrupt_info`: without the HITL request keys stock UIs read.
 *
 * @example
 * seedInterruptInfo(pending.value).question_num; // 1
 */
export function seedInterruptInfo(value: unknown): InterruptInfo {
  if (typeof value !== "object" || value === null) return value as InterruptInfo;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !HITL_KEYS.has(key))) as unknown as InterruptInfo;
}
