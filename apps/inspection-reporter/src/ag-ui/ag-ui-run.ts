import { TrellisError } from "@trellis/core";
import type { Message } from "@trellis/models";
import { type AgUiEvent, AgUiTranslator } from "@trellis/server";
import * as z from "zod";
import type { InspectionOrchestrator, TurnResult } from "../orchestrator/orchestrator.js";

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
  /** The authenticated user, when the server has auth on: the thread must be theirs; picks the settings. */
  user?: string | null;
  /** Which door: recorded in the run's metadata (`source`). Default `ag-ui`. */
  source?: string;
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
 * Runs one AG-UI turn through the orchestrator (a run of the server's run service) and emits its AG-UI
 * events: RUN_STARTED, the run's state and streamed messages (translated by the server's
 * `AgUiTranslator`), then — when the reporting agent paused for a clarification — its questions as an
 * ordinary assistant text message (the seed: "Questions sent to frontend as regular text message"), and
 * RUN_FINISHED. The frontend answers with an ordinary user message, which the graph's paused-input
 * policy makes the answer. Nothing about interrupts reaches the protocol. A failure ends with RUN_ERROR.
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
    const result = await orchestrator.processMessage(input.threadId, content, {
      ...(id ? { messageId: id } : {}),
      user: options.user ?? null,
      source: options.source ?? "ag-ui",
      onEvent: (event) => {
        const mode = event.event.split("|")[0];
        if (event.event === "values") {
          for (const e of translator.translate("values", clientState(event.data as Record<string, unknown>))) emit(e);
        } else if (mode === "messages") {
          for (const e of translator.translate("messages", event.data)) emit(e);
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
