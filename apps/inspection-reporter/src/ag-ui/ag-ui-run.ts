import { TrellisError } from "@trellis/core";
import type { Message } from "@trellis/models";
import { type AgUiEvent, AgUiTranslator } from "@trellis/server";
import * as z from "zod";
import type { InspectionOrchestrator, TurnResult } from "../orchestrator/orchestrator.js";
import { toTranslatorChunk } from "./message-chunks.js";

const agUiMessage = z.looseObject({ id: z.string().min(1), role: z.string(), content: z.unknown().optional() });

/** The parts of an AG-UI `RunAgentInput` this app reads. */
export const runAgentInputSchema = z.looseObject({
  threadId: z.string().min(1).max(200),
  runId: z.string().min(1).max(200),
  messages: z.array(agUiMessage).default([]),
  state: z.unknown().optional(),
  forwardedProps: z.unknown().optional(),
  resume: z
    .array(z.looseObject({ interruptId: z.string(), status: z.string().optional(), payload: z.unknown() }))
    .optional(),
});

/** A checked `RunAgentInput`. */
export type RunAgentInput = z.output<typeof runAgentInputSchema>;

/** Options of {@link runAgUiTurn}. */
export interface AgUiTurnOptions {
  /** The authenticated user, when the server has auth on: scopes the thread and picks the settings. */
  user?: string | null;
}

/**
 * The thread a user's AG-UI thread id maps to: the id itself, or `<user>:<id>` when a user is known,
 * so users of a server with auth cannot reach each other's threads.
 *
 * @example
 * graphThreadId("t1", "ana"); // "ana:t1"
 */
export function graphThreadId(threadId: string, user: string | null | undefined): string {
  return user ? `${user}:${threadId}` : threadId;
}

/**
 * Checks a `RunAgentInput`; throws `INVALID_ARGUMENT` saying what is wrong.
 *
 * @example
 * const input = parseRunAgentInput(JSON.parse(raw));
 */
export function parseRunAgentInput(body: unknown): RunAgentInput {
  const parsed = runAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const problem = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
    throw new TrellisError("INVALID_ARGUMENT", `Not a valid AG-UI RunAgentInput: ${problem}.`);
  }
  return parsed.data;
}

/** The user's message of a run: the last message when it is a user message, or a resume entry's payload. */
function userText(input: RunAgentInput): { content: string; id?: string } {
  const resolved = input.resume?.find((r) => r.status === undefined || r.status === "resolved");
  if (resolved)
    return { content: typeof resolved.payload === "string" ? resolved.payload : JSON.stringify(resolved.payload) };
  const last = input.messages.at(-1);
  if (last?.role !== "user") {
    throw new TrellisError("INVALID_ARGUMENT", "RunAgentInput.messages must end with the user's new message.");
  }
  const content = typeof last.content === "string" ? last.content : contentText(last.content);
  if (!content.trim()) throw new TrellisError("INVALID_ARGUMENT", "The user's message is empty.");
  return { content, id: last.id };
}

function contentText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => ((p as { type?: string }).type === "text" ? String((p as { text?: unknown }).text ?? "") : ""))
    .join("");
}

/** The state the frontend sees: the conversation and the seed's `current_agent`. */
function clientState(values: Record<string, unknown>): Record<string, unknown> {
  return { messages: (values.messages as Message[] | undefined) ?? [], current_agent: values.activeAgent ?? null };
}

/**
 * Runs one AG-UI turn through the orchestrator and emits its AG-UI events: RUN_STARTED, the run's
 * state and streamed messages (translated by the server's `AgUiTranslator`), then — when the reporting
 * agent paused for a clarification — its questions as an ordinary assistant text message
 * (TEXT_MESSAGE_START / CONTENT / END), and RUN_FINISHED with a `success` outcome. The frontend answers
 * with an ordinary user message; the orchestrator sees the paused thread and resumes it. Nothing about
 * interrupts reaches the protocol. A failure ends with RUN_ERROR.
 *
 * @example
 * await runAgUiTurn(orchestrator, input, (e) => ws.send(JSON.stringify(e)));
 */
export async function runAgUiTurn(
  orchestrator: InspectionOrchestrator,
  input: RunAgentInput,
  emit: (event: AgUiEvent) => void,
  options: AgUiTurnOptions = {},
): Promise<TurnResult | undefined> {
  const ids = { threadId: input.threadId, runId: input.runId };
  emit({ type: "RUN_STARTED", ...ids });
  const translator = new AgUiTranslator(input.messages);
  try {
    const { content, id } = userText(input);
    const result = await orchestrator.processMessage(graphThreadId(input.threadId, options.user), content, {
      ...(id ? { messageId: id } : {}),
      ...(options.user ? { userId: options.user } : {}),
      onEvent: (event) => {
        if (event.mode === "values" && event.namespace.length === 0) {
          for (const e of translator.translate("values", clientState(event.data))) emit(e);
        } else if (event.mode === "messages") {
          const [chunk, meta] = event.data;
          for (const e of translator.translate("messages", [toTranslatorChunk(chunk), meta])) emit(e);
        }
      },
    });
    for (const e of translator.flush()) emit(e);
    if (result.clarification) {
      const messageId = `clarification-${result.clarification.interruptId}`;
      emit({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" });
      emit({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: result.reply });
      emit({ type: "TEXT_MESSAGE_END", messageId });
    }
    emit({
      type: "RUN_FINISHED",
      ...ids,
      outcome: { type: "success" },
      result: { current_agent: result.currentAgent, awaiting_clarification: result.status === "clarification" },
    });
    return result;
  } catch (error) {
    for (const e of translator.flush()) emit(e);
    const code = error instanceof TrellisError ? error.code : "INTERNAL";
    emit({ type: "RUN_ERROR", message: (error as Error).message ?? String(error), code });
    return undefined;
  }
}
