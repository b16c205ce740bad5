import { checkToolResults, frontendToolDefinitions, openToolCalls } from "@trellis/agents";
import { TrellisError } from "@trellis/core";
import type { Message, ToolDefinition, ToolMessage } from "@trellis/models";
import { type AgUiEvent, AgUiTranslator, refuseAgUiIdentity, type StoredEvent } from "@trellis/server";
import * as z from "zod";
import { ANONYMOUS_SETTINGS } from "../agents/user-settings.js";
import {
  checkMessageLength,
  type InspectionOrchestrator,
  type ThreadView,
  type TurnResult,
} from "../orchestrator/orchestrator.js";
import { agUiMessages, answerMessageId, CLARIFICATION_TOOL, clarificationMessageId } from "./ag-ui-messages.js";
import { applyClientState } from "./client-state.js";

const agUiMessage = z.looseObject({ id: z.string().min(1), role: z.string(), content: z.unknown().optional() });

/** The parts of an AG-UI `RunAgentInput` this app reads. */
export const runAgentInputSchema = z.looseObject({
  threadId: z.string().min(1).max(200),
  runId: z.string().min(1).max(200),
  messages: z.array(agUiMessage).default([]),
  state: z.unknown().optional(),
  tools: z.unknown().optional(),
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
 * Checks a `RunAgentInput`; throws `INVALID_ARGUMENT` saying what is wrong. `user` is the authenticated
 * caller (null with the server's auth off): an input that names a user itself (a key the server
 * reserves, such as `forwardedProps.configurable.user_id` with auth on) is refused, naming the key.
 *
 * @example
 * const input = parseRunAgentInput(JSON.parse(raw), c.var.user);
 */
export function parseRunAgentInput(body: unknown, user: string | null = null): RunAgentInput {
  const parsed = runAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const problem = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
    throw new TrellisError("INVALID_ARGUMENT", `Not a valid AG-UI RunAgentInput: ${problem}.`);
  }
  refuseAgUiIdentity(parsed.data, user !== null);
  return parsed.data;
}

function contentText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => ((p as { type?: string }).type === "text" ? String((p as { text?: unknown }).text ?? "") : ""))
    .join("");
}

/** The inspector's settings, shown to the client as `user_settings` (absent when the app keeps none). */
type SettingsView = () => Record<string, unknown> | undefined;

/** The state the frontend sees: the conversation, the seed's `current_agent` and the inspector's settings. */
function clientValues(values: Record<string, unknown>, settings: SettingsView): Record<string, unknown> {
  const shown = settings();
  return {
    messages: (values.messages as Message[] | undefined) ?? [],
    current_agent: values.activeAgent ?? null,
    ...(shown ? { user_settings: shown } : {}),
  };
}

function clientState(view: ThreadView, settings: SettingsView): Record<string, unknown> {
  const shown = settings();
  return { messages: view.messages, current_agent: view.currentAgent, ...(shown ? { user_settings: shown } : {}) };
}

/** What an input asks for: a message to run, or only the conversation (a client that (re)connects). */
type Intent =
  | { kind: "message"; content: string; id?: string; answers?: string }
  | { kind: "tools"; results: ToolMessage[] }
  | { kind: "sync" }
  | { kind: "error"; error: TrellisError };

const textOfContent = (content: unknown): string => (typeof content === "string" ? content : contentText(content));

/** A resume entry's payload as the reply text: a string, or `text`/`answer`/`response` of an object. */
function payloadText(payload: unknown): string {
  if (typeof payload === "string") return payload;
  if (typeof payload === "object" && payload !== null) {
    for (const key of ["text", "answer", "response"]) {
      const value = (payload as Record<string, unknown>)[key];
      if (typeof value === "string") return value;
    }
  }
  return payload === undefined ? "" : JSON.stringify(payload);
}

/**
 * Reads the input against the thread as it is now:
 * - `resume` entries must name the pending clarification (its interrupt id, or the id of its questions'
 *   message `clarification-<call id>`), else the input is refused; a cancelled entry answers "stop";
 * - a last user message the thread already has (by id), or one that answers questions the thread shows
 *   answered already (a client re-sending after a lost connection), is not run again: the client gets
 *   the conversation;
 * - no new user message: on a known thread the client gets the conversation, else it is an error.
 */
function intentOf(input: RunAgentInput, view: ThreadView | undefined): Intent {
  if (input.resume && input.resume.length > 0) {
    const pending = view?.clarification;
    if (!pending) {
      return {
        kind: "error",
        error: new TrellisError(
          "NOTHING_TO_RESUME",
          `Thread "${input.threadId}" waits for no answer: nothing to resume.`,
        ),
      };
    }
    const names = new Set([
      pending.interruptId,
      ...(pending.toolCallId ? [clarificationMessageId(pending.toolCallId), pending.toolCallId] : []),
    ]);
    const unknown = input.resume.filter((r) => !names.has(r.interruptId)).map((r) => r.interruptId);
    const entry = input.resume.find((r) => names.has(r.interruptId));
    if (unknown.length > 0 || !entry) {
      return {
        kind: "error",
        error: new TrellisError(
          "RESUME_MISMATCH",
          `No pending interrupt ${unknown.map((id) => `"${id}"`).join(", ")} on thread "${input.threadId}": it waits for "${pending.interruptId}" (the questions of message "${pending.toolCallId ? clarificationMessageId(pending.toolCallId) : pending.interruptId}").`,
        ),
      };
    }
    const content = entry.status === "cancelled" ? "stop" : payloadText(entry.payload);
    if (!content.trim()) {
      return { kind: "error", error: new TrellisError("INVALID_ARGUMENT", "The resume payload holds no answer.") };
    }
    return { kind: "message", content, answers: pending.interruptId };
  }
  const messages = input.messages;
  const last = messages.at(-1);
  const results = newToolResults(input, view);
  if (results.length > 0) {
    // frontend tools' results: they answer calls the agents left open for the client
    if (view?.clarification) {
      return {
        kind: "error",
        error: new TrellisError(
          "THREAD_PAUSED",
          `Thread "${input.threadId}" waits for the inspector's answers to the questions of message "${view.clarification.toolCallId ? clarificationMessageId(view.clarification.toolCallId) : view.clarification.interruptId}", not for a tool result: send them as a user message or a resume entry.`,
        ),
      };
    }
    try {
      checkToolResults(view?.messages ?? [], results);
    } catch (error) {
      return { kind: "error", error: error as TrellisError };
    }
    return { kind: "tools", results };
  }
  if (last?.role !== "user") {
    if (view) return { kind: "sync" };
    return {
      kind: "error",
      error: new TrellisError("INVALID_ARGUMENT", "RunAgentInput.messages must end with the user's new message."),
    };
  }
  if (view) {
    const shown = new Set(agUiMessages(view.messages).map((m) => m.id));
    if (shown.has(last.id)) return { kind: "sync" };
    const before = messages.at(-2);
    const askedBy = before?.id.startsWith("clarification-") ? before.id.slice("clarification-".length) : undefined;
    if (askedBy && shown.has(answerMessageId(askedBy))) return { kind: "sync" };
  }
  const content = textOfContent(last.content);
  if (!content.trim()) {
    return { kind: "error", error: new TrellisError("INVALID_ARGUMENT", "The user's message is empty.") };
  }
  return { kind: "message", content, id: last.id };
}

/**
 * The tool messages that end the input and that the thread does not hold yet (by id): the results of
 * frontend tools the client ran. An AG-UI `error` makes the result an error.
 */
function newToolResults(input: RunAgentInput, view: ThreadView | undefined): ToolMessage[] {
  const shown = new Set(view ? agUiMessages(view.messages).map((m) => m.id) : []);
  const out: ToolMessage[] = [];
  for (let i = input.messages.length - 1; i >= 0; i--) {
    const m = input.messages[i] as Record<string, unknown> & { id: string; role: string };
    if (m.role !== "tool" || shown.has(m.id)) break;
    const error = typeof m.error === "string" ? m.error : undefined;
    const content = textOfContent(m.content) || error || "";
    out.unshift({
      id: m.id,
      role: "tool",
      toolCallId: typeof m.toolCallId === "string" ? m.toolCallId : "",
      content,
      ...(error !== undefined ? { status: "error" as const } : {}),
    });
  }
  return out;
}

/** True when the client holds the conversation's messages as its first messages, in their order. */
function inStep(clientOrder: readonly string[], conversation: ReadonlyArray<{ id: string }>): boolean {
  return conversation.every((m, i) => clientOrder[i] === m.id);
}

/**
 * MESSAGES_SNAPSHOT of `conversation`. `@ag-ui/client` keeps the messages it has in its own order and
 * appends the others: when what the client holds is not a prefix of the conversation (it missed
 * messages in between, or has them in another order), an empty snapshot clears its list first, so that
 * it ends up with the conversation in the thread's order.
 */
function snapshotEvents(clientOrder: readonly string[], conversation: ReadonlyArray<{ id: string }>): AgUiEvent[] {
  const wanted = new Set(conversation.map((m) => m.id));
  const kept = clientOrder.filter((id) => wanted.has(id));
  const prefix = kept.every((id, i) => conversation[i]?.id === id);
  return [
    ...(prefix ? [] : [{ type: "MESSAGES_SNAPSHOT", messages: [] }]),
    { type: "MESSAGES_SNAPSHOT", messages: conversation },
  ];
}

/**
 * What RUN_FINISHED's `result` says about the thread: the agent, the clarification that waits, and the
 * frontend tool calls whose results the client owes (`pending_tool_calls`: `{ id, name }`).
 */
function finishedResult(view: ThreadView | undefined, currentAgent: string): Record<string, unknown> {
  const pending = view?.clarification;
  const owed = openToolCalls(view?.messages ?? []).filter((c) => c.name !== CLARIFICATION_TOOL);
  return {
    current_agent: currentAgent,
    pending_tool_calls: owed.map((c) => ({ id: c.id, name: c.name })),
    awaiting_clarification: pending !== undefined,
    pending_clarification: pending
      ? {
          interrupt_id: pending.interruptId,
          ...(pending.toolCallId ? { message_id: clarificationMessageId(pending.toolCallId) } : {}),
          questions: pending.request.questions,
          display_text: pending.request.display_text,
        }
      : null,
  };
}

/**
 * Runs one AG-UI turn through the orchestrator (a run of the server's run service) and emits its AG-UI
 * events: RUN_STARTED; a MESSAGES_SNAPSHOT of the thread's conversation when the client lacks part of
 * it (it reconnected, or opened the thread afresh); the run's state and streamed messages (translated
 * by the server's `AgUiTranslator`); then — when the reporting agent paused for a clarification — its
 * questions as an ordinary assistant text message (the seed: "Questions sent to frontend as regular
 * text message"); a MESSAGES_SNAPSHOT of the conversation as it now stands; and RUN_FINISHED, whose
 * `result` names the pending clarification. In the conversation, `request_clarification` calls are
 * the questions (`clarification-<call id>`) and their results the inspector's answers
 * (`answer-<call id>`, role `user`): no tool call is left without a result while the thread waits.
 *
 * Each agent's part of the turn is a step: STEP_STARTED / STEP_FINISHED with the agent's id as
 * `stepName`, so a frontend sees the conversation move from the general agent to a specialist.
 *
 * The frontend answers with an ordinary user message, which the graph's paused-input policy makes the
 * answer, or with an AG-UI `resume` entry naming the pending clarification.
 *
 * Frontend tools (`RunAgentInput.tools`) are offered to the agents for the turn (a name of one of the
 * agents' own tools is refused). When an agent calls one, the turn ends with TOOL_CALL_START / ARGS /
 * END and RUN_FINISHED, the call open in the conversation; the client's `tool` message(s) at the end of
 * the next input — no user message needed — continue that agent with the result. A result no open call
 * waits for is refused naming it; one that arrives while a clarification is pending is refused with
 * `THREAD_PAUSED` (the thread waits for the inspector's answers); a new user message instead of the
 * result closes the open call with an error result. The client's `state` may change only
 * `user_settings` (see `CLIENT_STATE_KEYS`), applied before the turn and shown in STATE_SNAPSHOT. An input without a new user
 * message on a known thread runs nothing: the client gets the conversation (how a client that
 * reconnects learns what is pending). A failure ends with RUN_ERROR.
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
  const user = options.user ?? null;
  let translator = new AgUiTranslator(input.messages);
  let step: string | undefined;
  try {
    const before = await orchestrator.getThread(input.threadId, user).catch((error: unknown) => {
      if (error instanceof TrellisError && error.code === "NOT_FOUND") return undefined;
      throw error;
    });
    const frontendTools: ToolDefinition[] = frontendToolDefinitions(
      input.tools,
      orchestrator.toolNames.map((name) => ({ name })),
    );
    const intent = intentOf(input, before);
    if (intent.kind === "error") throw intent.error;
    if (intent.kind === "message") checkMessageLength(intent.content);
    // the client's state: only the inspector's settings may change (see CLIENT_STATE_KEYS)
    // the authenticated user's settings (one anonymous set with auth off), never the thread's
    const settingsKey = user ?? ANONYMOUS_SETTINGS;
    const store = orchestrator.settings;
    applyClientState(input.state, store, settingsKey);
    const settings: SettingsView = () => (store ? { ...store.get(settingsKey) } : undefined);
    const shown = before ? agUiMessages(before.messages) : [];
    const clientOrder = input.messages.map((m) => m.id);
    if (intent.kind === "sync") {
      for (const e of snapshotEvents(clientOrder, shown)) emit(e);
      emit({ type: "STATE_SNAPSHOT", snapshot: clientState(before as ThreadView, settings) });
      emit({
        type: "RUN_FINISHED",
        ...ids,
        outcome: { type: "success" },
        result: finishedResult(before, (before as ThreadView).currentAgent),
      });
      return undefined;
    }
    const last = input.messages.at(-1);
    const waiting = before?.clarification?.toolCallId;
    if (before && waiting && intent.kind === "message") {
      // the message answers the pending questions (the graph's paused-input policy): it joins the
      // conversation as the answer, right after the questions
      const answer = { id: answerMessageId(waiting), role: "user", content: intent.content };
      for (const e of snapshotEvents(clientOrder, [...shown, answer])) emit(e);
    } else if (before && !inStep(clientOrder, shown)) {
      // the client lacks part of the conversation: give it the thread's, with its new message
      const mine =
        intent.kind === "tools"
          ? agUiMessages(intent.results)
          : last
            ? [{ id: last.id, role: "user", content: intent.content }]
            : [];
      for (const e of snapshotEvents(clientOrder, [...shown, ...mine])) emit(e);
    }
    if (before) translator = new AgUiTranslator([...input.messages, ...before.messages]);
    // the agents' tool results are in their own state until their turn ends: announced from there
    const inner = new AgUiTranslator([...input.messages, ...(before?.messages ?? [])]);
    const hidden = new Set<string>(); // request_clarification calls: shown as questions and answers instead
    for (const m of before?.messages ?? []) {
      for (const call of m.role === "assistant" ? (m.toolCalls ?? []) : []) {
        if (call.name === CLARIFICATION_TOOL) hidden.add(call.id);
      }
    }
    const results = new Set<string>();
    const send = (e: AgUiEvent) => {
      if (e.type === "TOOL_CALL_START" && e.toolCallName === CLARIFICATION_TOOL) hidden.add(e.toolCallId as string);
      if (typeof e.toolCallId === "string" && hidden.has(e.toolCallId)) return;
      if (e.type === "TOOL_CALL_RESULT") {
        if (results.has(e.messageId as string)) return;
        results.add(e.messageId as string);
      }
      emit(e);
    };
    // STEP_STARTED / STEP_FINISHED around each agent's part of the turn (the agent is the subgraph the
    // event comes from: "messages|reporting-agent:<task>")
    const enter = (agent: string | undefined) => {
      if (!agent || agent === step) return;
      if (step) emit({ type: "STEP_FINISHED", stepName: step });
      step = agent;
      emit({ type: "STEP_STARTED", stepName: agent });
    };
    const onEvent = (event: StoredEvent) => {
      const [mode, namespace] = event.event.split("|");
      enter(namespace?.split(":")[0]);
      if (event.event === "values") {
        const values = clientValues(event.data as Record<string, unknown>, settings);
        for (const e of translator.translate("values", values)) send(e);
      } else if (mode === "values") {
        for (const e of inner.translate("values", event.data)) if (e.type === "TOOL_CALL_RESULT") send(e);
      } else if (mode === "messages") {
        for (const e of translator.translate("messages", event.data)) send(e);
      }
    };
    const common = {
      user,
      source: options.source ?? "ag-ui",
      onEvent,
      ...(frontendTools.length > 0 ? { frontendTools } : {}),
    };
    const result =
      intent.kind === "tools"
        ? await orchestrator.processToolResults(input.threadId, intent.results, common)
        : await orchestrator.processMessage(input.threadId, intent.content, {
            ...common,
            ...(intent.id ? { messageId: intent.id } : {}),
            ...(intent.answers ? { answers: intent.answers } : {}),
          });
    for (const e of translator.flush()) send(e);
    const after = await orchestrator.getThread(input.threadId, user);
    if (result.clarification) {
      const callId = after.clarification?.toolCallId;
      const messageId = callId ? clarificationMessageId(callId) : `clarification-${result.clarification.interruptId}`;
      emit({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" });
      emit({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: result.reply });
      emit({ type: "TEXT_MESSAGE_END", messageId });
    }
    if (step) emit({ type: "STEP_FINISHED", stepName: step });
    step = undefined;
    emit({ type: "MESSAGES_SNAPSHOT", messages: agUiMessages(after.messages) });
    emit({
      type: "RUN_FINISHED",
      ...ids,
      outcome: { type: "success" },
      result: finishedResult(after, result.currentAgent),
    });
    return result;
  } catch (error) {
    for (const e of translator.flush()) emit(e);
    if (step) emit({ type: "STEP_FINISHED", stepName: step });
    const code = error instanceof TrellisError ? error.code : "INTERNAL";
    emit({ type: "RUN_ERROR", message: (error as Error).message ?? String(error), code, ...ids });
    return undefined;
  }
}
