import { randomUUID } from "node:crypto";
import { checkToolResults, FRONTEND_TOOLS_KEY, openToolCalls } from "@trellis/agents";
import { type Interrupt, TrellisError, type TrellisErrorCode } from "@trellis/core";
import { type Message, messageText, type ToolDefinition, type ToolMessage, userMessage } from "@trellis/models";
import type { RunPrincipal, RunService, StoredEvent } from "@trellis/server";
import { DEFAULT_AGENT } from "../agents/agent-definitions.js";
import { type ClarificationRequest, isClarificationRequest } from "../agents/request-clarification.js";
import type { UserSettingsStore } from "../agents/user-settings.js";
import { consoleLogger, type Logger } from "./logger.js";

/** The assistant id the app is registered under. */
export const ASSISTANT_ID = "inspection-reporter";

/** The longest message any door takes, in characters: an inspector's reply, not a document. */
export const MAX_MESSAGE_CHARS = 20_000;

/**
 * Refuses a message longer than {@link MAX_MESSAGE_CHARS} with an `INVALID_ARGUMENT` that names the
 * limit (and does not repeat the message).
 *
 * @example
 * checkMessageLength("hoofdstraat 2, ja, nee"); // fine
 */
export function checkMessageLength(content: string): void {
  if (content.length <= MAX_MESSAGE_CHARS) return;
  throw new TrellisError(
    "INVALID_ARGUMENT",
    `A message may have at most ${MAX_MESSAGE_CHARS.toLocaleString("en-US")} characters; this one has ${content.length.toLocaleString("en-US")}.`,
  );
}

/** Options of {@link InspectionOrchestrator.processMessage}. */
export interface ProcessMessageOptions {
  /** Id of the user message (e.g. the AG-UI message id); random when left out. */
  messageId?: string;
  /**
   * The authenticated user (null or absent when the server's auth is off): the thread must be theirs,
   * and the agents use their settings. `"app"` for the app's own trusted code (the CLI).
   */
  user?: string | null | "app";
  /** Receives the run's events as the server stores them (`values`, `messages|…`, `metadata`, `end`). */
  onEvent?: (event: StoredEvent) => void;
  /** Recorded in the run's metadata (`source`): which door the message came through. */
  source?: string;
  /**
   * Tools the client runs itself (AG-UI's `tools`), offered to the agents for this turn: a call to one
   * ends the turn with the call open; its result comes back with {@link InspectionOrchestrator.processToolResults}.
   */
  frontendTools?: readonly ToolDefinition[];
  /**
   * Answer this pending interrupt with the message (a `Command({ resume: { [interruptId]: message } })`)
   * instead of sending it as input: refused (`RESUME_MISMATCH`, `NOTHING_TO_RESUME`) when the thread
   * does not wait for exactly that interrupt.
   */
  answers?: string;
}

/** A paused clarification: the interrupt to answer and what it asks. */
export interface PendingClarification {
  interruptId: string;
  request: ClarificationRequest;
  /** The `request_clarification` call that waits (absent when the thread's messages do not show it). */
  toolCallId?: string;
}

/** The outcome of one user message. */
export interface TurnResult {
  threadId: string;
  /** The agent that has the conversation now (the seed's `current_agent`). */
  currentAgent: string;
  /**
   * True when the message answered a pending clarification: the graph's paused-input policy made it
   * the result of `request_clarification` instead of a new message of the conversation.
   */
  resumed: boolean;
  /** `clarification`: the reporting agent paused and waits for the answers to `reply`'s questions. */
  status: "answered" | "clarification";
  /** What the frontend shows as the assistant's message: the answer, or the numbered questions. */
  reply: string;
  clarification?: PendingClarification;
  /**
   * Messages the thread gained while this message was processed (including those of a run it waited
   * behind, e.g. one a restarted server finished), without the user's own.
   */
  newMessages: Message[];
}

/** What a thread looks like between turns. */
export interface ThreadView {
  threadId: string;
  currentAgent: string;
  messages: Message[];
  clarification?: PendingClarification;
}

/** The thread's state as the run service reads it. */
type StateSnapshotLike = Awaited<ReturnType<RunService["snapshot"]>>;

function principal(user: string | null | "app" | undefined): RunPrincipal {
  return user === "app" ? "app" : { user: user ?? null };
}

function messagesOf(values: Record<string, unknown> | undefined): Message[] {
  return [...((values?.messages as Message[] | undefined) ?? [])];
}

/**
 * The seed's orchestrator (Phase 3) over the Trellis server's run service: each user message becomes
 * a run of the `inspection-reporter` graph, queued behind the thread's other runs (`enqueue`), so the
 * thread has one record and one history whichever door it came through. Whether the message answers a
 * pending clarification or starts a new request is not decided here: the graph's paused-input policy
 * (`resume`) makes a message that arrives while the reporting agent waits the answer to its questions.
 * After the run, it turns the thread's state into the reply: the numbered questions when the
 * reporting agent paused ("Graph interrupted at …"), else the last assistant text.
 *
 * @example
 * const orchestrator = new InspectionOrchestrator(server.runs);
 * const first = await orchestrator.processMessage("t1", "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854");
 * first.status; // "clarification" — first.reply holds the numbered questions
 * const second = await orchestrator.processMessage("t1", "hoofdstraat 2, ja, nee");
 * second.resumed; // true
 */
export class InspectionOrchestrator {
  readonly runs: RunService;
  readonly assistantId: string;
  /** The inspectors' settings (what AG-UI clients may set in their state, see `applyClientState`). */
  readonly settings: UserSettingsStore | undefined;
  /** The names of the agents' own tools: a frontend tool may not take one. */
  readonly toolNames: readonly string[];
  readonly #logger: Logger;

  constructor(
    runs: RunService,
    options: {
      assistantId?: string;
      logger?: Logger;
      settings?: UserSettingsStore;
      toolNames?: readonly string[];
    } = {},
  ) {
    this.runs = runs;
    this.assistantId = options.assistantId ?? ASSISTANT_ID;
    this.settings = options.settings;
    this.toolNames = options.toolNames ?? [];
    this.#logger = options.logger ?? consoleLogger;
  }

  /**
   * Processes one user message on a thread (created when new): runs it through the run service and
   * waits for the thread to pause or finish. Messages of one thread run one after the other.
   */
  async processMessage(threadId: string, content: string, options: ProcessMessageOptions = {}): Promise<TurnResult> {
    checkMessageLength(content);
    const as = principal(options.user);
    const messageId = options.messageId ?? randomUUID();
    const before = await this.#read(threadId, as).catch(() => undefined);
    // a frontend tool call the inspector went past (the app never answered it): closed with an error
    // result before the new message, so the conversation holds no call without a result
    const closing =
      options.answers || (before?.interrupts.length ?? 0) > 0
        ? []
        : openToolCalls(messagesOf(before?.values)).map(
            (call): ToolMessage => ({
              id: `closed-${call.id}`,
              role: "tool",
              toolCallId: call.id,
              name: call.name,
              status: "error",
              content: "Geen resultaat: de inspecteur ging verder met een nieuw bericht.",
            }),
          );
    const start = options.answers
      ? { command: { resume: { [options.answers]: content } } }
      : { input: { messages: [...closing, userMessage(content, { id: messageId })] } };
    const turn = await this.#turn(threadId, start, before, options);
    const answersNow = turn.answersNow;
    if (answersNow) this.#logger.info(`Resuming interrupted graph with: ${content.slice(0, 100)}...`);
    const messages = turn.messages;
    const resumed = !messages.some((m) => m.id === messageId);
    if (resumed && !answersNow) {
      this.#logger.info(`Resumed the graph that paused while the message waited, with: ${content.slice(0, 100)}...`);
    }
    return this.#result(threadId, turn, resumed);
  }

  /**
   * Continues a thread with the results of frontend tool calls (tools the client ran: the AG-UI
   * frontend's `tool` messages): they join the conversation and the agent that called the tools goes on
   * with them. Each result must answer a call the thread left open (`FrontendToolError` naming it
   * otherwise); while a clarification is pending the thread takes the inspector's answers, not tool
   * results (`THREAD_PAUSED`). Nothing is stored when they are refused.
   *
   * @example
   * const turn = await orchestrator.processToolResults("t1", [toolMessage("Dorpsplein 14", { toolCallId })]);
   */
  async processToolResults(
    threadId: string,
    results: readonly ToolMessage[],
    options: Omit<ProcessMessageOptions, "messageId" | "answers"> = {},
  ): Promise<TurnResult> {
    const as = principal(options.user);
    const view = await this.getThread(threadId, options.user);
    if (view.clarification) {
      throw new TrellisError(
        "THREAD_PAUSED",
        `Thread "${threadId}" waits for the inspector's answers to the questions of message "${view.clarification.toolCallId ? `clarification-${view.clarification.toolCallId}` : view.clarification.interruptId}", not for a tool result: send them as a user message.`,
      );
    }
    checkToolResults(view.messages, results);
    for (const r of results) checkMessageLength(r.content);
    const open = new Map(openToolCalls(view.messages).map((c) => [c.id, c.name]));
    const named = results.map((r) => (r.name || !open.get(r.toolCallId) ? r : { ...r, name: open.get(r.toolCallId) }));
    const before = await this.#read(threadId, as).catch(() => undefined);
    const turn = await this.#turn(threadId, { input: { messages: named } }, before, options);
    return this.#result(threadId, turn, false);
  }

  /** Runs one turn through the run service and waits for it; the thread's messages and pauses after. */
  async #turn(
    threadId: string,
    start: { input: Record<string, unknown> } | { command: { resume: Record<string, string> } },
    before: StateSnapshotLike | undefined,
    options: Omit<ProcessMessageOptions, "messageId">,
  ) {
    const as = principal(options.user);
    const known = new Set(messagesOf(before?.values).map((m) => m.id));
    // the run's user (whose settings the agents use) is the server's to set: ctx.user, from `as`
    const configurable: Record<string, unknown> = {
      ...(options.frontendTools?.length ? { [FRONTEND_TOOLS_KEY]: [...options.frontendTools] } : {}),
    };
    const run = await this.runs.start({
      assistantId: this.assistantId,
      threadId,
      as,
      ...start,
      multitaskStrategy: "enqueue",
      metadata: { source: options.source ?? ASSISTANT_ID },
      kwargs: {
        streamMode: ["values", "messages-tuple"],
        streamSubgraphs: true,
        config: Object.keys(configurable).length > 0 ? { configurable } : {},
      },
    });
    // the service binds a message to a pause pending now; a pause reached later (by a run ahead in the
    // queue) the graph's policy applies when this run starts
    const answersNow = run.kwargs.command?.resume !== undefined;
    for await (const event of this.runs.follow(run.runId, 0)) options.onEvent?.(event);
    const end = await this.runs.wait(run.runId);
    if (end.status === "error" || end.status === "timeout") {
      const error = end.error ?? { error: "INTERNAL", message: "The run failed." };
      throw new TrellisError(error.error as TrellisErrorCode, error.message);
    }
    const messages = messagesOf(end.values);
    const newMessages = messages.filter((m) => !known.has(m.id) && m.role !== "user");
    return { end, messages, newMessages, answersNow };
  }

  /** The turn's outcome: the questions when the reporting agent paused, else the last assistant text. */
  #result(
    threadId: string,
    turn: { end: { values: Record<string, unknown>; interrupts: readonly Interrupt[] }; newMessages: Message[] },
    resumed: boolean,
  ): TurnResult {
    const { end, newMessages } = turn;
    const currentAgent = (end.values.activeAgent as string | undefined) ?? DEFAULT_AGENT;
    if (end.interrupts.length > 0) {
      const nodes = [...new Set(end.interrupts.map(topLevelNode))].join(", ");
      this.#logger.info(`Graph interrupted at node(s): ${nodes}, thread: ${threadId}`);
      for (const pending of end.interrupts) this.#logger.info(`Interrupt payload: ${JSON.stringify(pending.value)}`);
    }
    const clarification = pendingClarification(end.interrupts);
    if (clarification) {
      const reply = clarification.request.display_text;
      return { threadId, currentAgent, resumed, status: "clarification", reply, clarification, newMessages };
    }
    const other = end.interrupts[0];
    const answer = [...newMessages].reverse().find((m) => m.role === "assistant" && m.content.trim());
    const reply = other ? JSON.stringify(other.value) : messageText(answer);
    return { threadId, currentAgent, resumed, status: "answered", reply, newMessages };
  }

  /**
   * The thread's conversation, its agent and the clarification it waits for; 404 when `user` may not
   * see it. While an agent is paused inside its turn, its messages so far (the reporting agent's tool
   * calls and results, and the `request_clarification` call that waits) live in the agent's own state
   * until the turn ends: they are read from there and follow the thread's messages, so a client that
   * comes back sees everything up to the pending question.
   */
  async getThread(threadId: string, user?: string | null | "app"): Promise<ThreadView> {
    await this.runs.thread(threadId, principal(user));
    const state = await this.runs.graph(this.assistantId).graph.getState({ threadId }, { subgraphs: true });
    const messages = withTurnInProgress(state);
    const found = pendingClarification(state?.interrupts ?? []);
    const clarification = found ? { ...found, ...waitingCall(messages) } : undefined;
    return {
      threadId,
      currentAgent: (state?.values.activeAgent as string | undefined) ?? DEFAULT_AGENT,
      messages,
      ...(clarification ? { clarification } : {}),
    };
  }

  async #read(threadId: string, as: RunPrincipal) {
    const thread = await this.runs.thread(threadId, as);
    return this.runs.snapshot(thread);
  }
}

interface StateWithTasks {
  values: Record<string, unknown>;
  tasks?: ReadonlyArray<{ state?: StateWithTasks | undefined }>;
}

/** The thread's messages followed by those of the agents' turns still in progress (paused subgraphs). */
function withTurnInProgress(state: StateWithTasks | undefined): Message[] {
  const messages = messagesOf(state?.values);
  const ids = new Set(messages.map((m) => m.id));
  const visit = (s: StateWithTasks | undefined) => {
    for (const task of s?.tasks ?? []) {
      for (const m of messagesOf(task.state?.values)) {
        if (ids.has(m.id)) continue;
        ids.add(m.id);
        messages.push(m);
      }
      visit(task.state);
    }
  };
  visit(state);
  return messages;
}

/** The `request_clarification` call that has no result yet (the one the pause waits in). */
function waitingCall(messages: readonly Message[]): { toolCallId?: string } {
  const answered = new Set(messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "assistant") continue;
    const call = m.toolCalls?.find((c) => c.name === "request_clarification" && !answered.has(c.id));
    if (call) return { toolCallId: call.id };
  }
  return {};
}

/** The node of the graph itself that paused: the agent, for an interrupt inside an agent's subgraph. */
function topLevelNode(pending: Interrupt): string {
  return pending.namespace ? (pending.namespace.split("|")[0]?.split(":")[0] ?? pending.node) : pending.node;
}

/** The first pending interrupt that is a clarification request. */
function pendingClarification(interrupts: readonly Interrupt[]): PendingClarification | undefined {
  const found = interrupts.find((i) => isClarificationRequest(i.value));
  return found ? { interruptId: found.id, request: found.value as ClarificationRequest } : undefined;
}
