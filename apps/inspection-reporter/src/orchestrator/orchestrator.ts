import { Command, type Interrupt, type RunConfig, type StreamEvent } from "@trellis/core";
import { type Message, userMessage } from "@trellis/models";
import { DEFAULT_AGENT } from "../agents/agent-definitions.js";
import type { InspectionGraph } from "../agents/inspection-graph.js";
import { type ClarificationRequest, isClarificationRequest } from "../agents/request-clarification.js";
import { withSettingsKey } from "../agents/user-settings.js";
import { consoleLogger, type Logger } from "./logger.js";

/** Options of {@link InspectionOrchestrator.processMessage}. */
export interface ProcessMessageOptions {
  /** Id of the user message (e.g. the AG-UI message id); random when left out. */
  messageId?: string;
  /** Receives the run's stream events (`values` and `messages` modes) as they happen. */
  onEvent?: (event: StreamEvent) => void;
  /** Cancels the run; the thread keeps its last checkpoint. */
  signal?: AbortSignal;
  /** Whose settings the agents use (`configurable.user_id`); the thread's when left out. */
  userId?: string;
}

/** A paused clarification: the interrupt to answer and what it asks. */
export interface PendingClarification {
  interruptId: string;
  request: ClarificationRequest;
}

/** The outcome of one user message. */
export interface TurnResult {
  threadId: string;
  /** The agent that has the conversation now (the seed's `current_agent`). */
  currentAgent: string;
  /** True when the message answered a pending clarification (`Command({ resume })`). */
  resumed: boolean;
  /** `clarification`: the reporting agent paused and waits for the answers to `reply`'s questions. */
  status: "answered" | "clarification";
  /** What the frontend shows as the assistant's message: the answer, or the numbered questions. */
  reply: string;
  clarification?: PendingClarification;
  /** Messages the graph added to the thread in this turn. */
  newMessages: Message[];
}

/** What a thread looks like between turns. */
export interface ThreadView {
  threadId: string;
  currentAgent: string;
  messages: Message[];
  clarification?: PendingClarification;
}

/** One queue per saver and thread: messages of a thread are processed one after the other. */
const queues = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * The seed's orchestrator (Phase 3). Before each user message it reads the thread's state: when the
 * graph is paused at an interrupt, the message resumes it (`new Command({ resume: message })`), so a
 * reply to the reporting agent's questions lands exactly where it asked them; otherwise the message is
 * a new input, routed from START to the persisted agent. After the run it reports a pause
 * ("Graph interrupted at …") and turns a clarification request into the assistant's reply.
 *
 * @example
 * const orchestrator = new InspectionOrchestrator(graph);
 * const first = await orchestrator.processMessage("t1", "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854");
 * first.status; // "clarification" — first.reply holds the numbered questions
 * const second = await orchestrator.processMessage("t1", "hoofdstraat 2, ja, nee");
 * second.resumed; // true
 */
export class InspectionOrchestrator {
  readonly graph: InspectionGraph;
  readonly #logger: Logger;

  constructor(graph: InspectionGraph, options: { logger?: Logger } = {}) {
    this.graph = graph;
    this.#logger = options.logger ?? consoleLogger;
  }

  /** Processes one user message on a thread; messages of one thread are processed in order. */
  processMessage(threadId: string, content: string, options: ProcessMessageOptions = {}): Promise<TurnResult> {
    const key = this.graph.checkpointer ?? this.graph;
    const perThread = queues.get(key) ?? new Map<string, Promise<unknown>>();
    queues.set(key, perThread);
    const previous = perThread.get(threadId) ?? Promise.resolve();
    const turn = previous.catch(() => undefined).then(() => this.#process(threadId, content, options));
    const settled = turn.catch(() => undefined);
    perThread.set(threadId, settled);
    void settled.then(() => {
      if (perThread.get(threadId) === settled) perThread.delete(threadId);
    });
    return turn;
  }

  /** The thread's messages, its agent and the clarification it waits for, if any. */
  async getThread(threadId: string): Promise<ThreadView> {
    const state = await this.graph.getState({ threadId });
    const clarification = pendingClarification(state.interrupts);
    return {
      threadId,
      currentAgent: state.values.activeAgent ?? DEFAULT_AGENT,
      messages: [...(state.values.messages ?? [])],
      ...(clarification ? { clarification } : {}),
    };
  }

  async #process(threadId: string, content: string, options: ProcessMessageOptions): Promise<TurnResult> {
    const config: RunConfig = {
      threadId,
      ...(options.userId ? { configurable: { user_id: options.userId } } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    };
    // Read the persisted agent and whether the graph waits for an answer (seed: process_message).
    let currentAgent: string = DEFAULT_AGENT;
    let isInterrupted = false;
    let known = new Set<string>();
    try {
      const existing = await this.graph.getState({ threadId });
      known = new Set((existing.values.messages ?? []).map((m) => m.id));
      if (existing.values.activeAgent) {
        currentAgent = existing.values.activeAgent;
        this.#logger.info(`Resuming with persisted agent: ${currentAgent} (thread: ${threadId})`);
      }
      if (existing.interrupts.length > 0) {
        isInterrupted = true;
        this.#logger.info(
          `Thread ${threadId} is interrupted at ${existing.next.join(", ")}, will resume with user message`,
        );
      } else if (existing.next.length > 0) {
        // A run that stopped without an interrupt (a crash): finish it before the new message.
        this.#logger.warn(
          `Thread ${threadId} has unfinished tasks at ${existing.next.join(", ")}; finishing them first`,
        );
        await this.#stream(null, config, options);
      }
    } catch (error) {
      this.#logger.warn(`Failed to read persisted state: ${(error as Error).message}, using ${DEFAULT_AGENT}`);
    }

    if (isInterrupted) {
      this.#logger.info(`Resuming interrupted graph with: ${content.slice(0, 100)}...`);
      await this.#stream(new Command({ resume: content }), config, options);
    } else {
      const message = userMessage(content, options.messageId ? { id: options.messageId } : {});
      await this.#stream({ messages: [message], activeAgent: currentAgent }, config, options);
    }

    // After the run: did the graph pause? (seed: _stream_response)
    const final = await this.graph.getState({ threadId });
    const newMessages = (final.values.messages ?? []).filter((m) => !known.has(m.id) && m.role !== "user");
    const agent = final.values.activeAgent ?? currentAgent;
    if (final.next.length > 0) {
      this.#logger.info(`Graph interrupted at node(s): ${final.next.join(", ")}, thread: ${threadId}`);
      for (const pending of final.interrupts) this.#logger.info(`Interrupt payload: ${JSON.stringify(pending.value)}`);
    }
    const clarification = pendingClarification(final.interrupts);
    if (clarification) {
      return {
        threadId,
        currentAgent: agent,
        resumed: isInterrupted,
        status: "clarification",
        reply: clarification.request.display_text,
        clarification,
        newMessages,
      };
    }
    const other = final.interrupts[0];
    const answer = [...newMessages].reverse().find((m) => m.role === "assistant" && m.content.trim());
    return {
      threadId,
      currentAgent: agent,
      resumed: isInterrupted,
      status: "answered",
      reply: other ? JSON.stringify(other.value) : (answer?.content ?? ""),
      newMessages,
    };
  }

  async #stream(
    input: Parameters<InspectionGraph["streamEvents"]>[0],
    config: RunConfig,
    options: ProcessMessageOptions,
  ): Promise<void> {
    const owner = options.userId ?? (config.threadId as string);
    await withSettingsKey(owner, async () => {
      for await (const event of this.graph.streamEvents(input, { ...config, streamMode: ["values", "messages"] })) {
        options.onEvent?.(event);
      }
    });
  }
}

/** The first pending interrupt that is a clarification request. */
function pendingClarification(interrupts: readonly Interrupt[]): PendingClarification | undefined {
  const found = interrupts.find((i) => isClarificationRequest(i.value));
  return found ? { interruptId: found.id, request: found.value as ClarificationRequest } : undefined;
}
