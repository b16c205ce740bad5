/**
 * The channel-neutral face of the graph: start a conversation, answer a pause, see where a
 * conversation stands. Teams, Telegram and the CLI all go through it, so they pause and resume alike.
 */
import { DecisionError, pauseOf, type ReviewDecision, resumeUpdate } from "./decisions.js";
import type { TwiGraph } from "./graph.js";
import { lastAssistantText } from "./nodes.js";
import { type AgentState, type ConversationStart, initialState, MAX_REVISIONS } from "./state.js";
import { parseTwiText } from "./twi-document.js";

/** The nodes the graph pauses before. */
const PAUSES = new Set(["review", "approve"]);

/**
 * Where a conversation stands, as a channel shows it.
 *
 * @example
 * if (view.kind === "review") sendReviewCard(view.draft);
 */
export type ConversationView =
  | {
      kind: "review";
      conversationId: string;
      draft: string;
      /** Revision of the draft (0 for the first). */
      revision: number;
      /** Revisions still allowed before a request is forced to final approval. */
      revisionsLeft: number;
      /** False when the draft is not a six-section instruction (the model asked back, or answered a question). */
      isInstruction: boolean;
    }
  | {
      kind: "final_approval";
      conversationId: string;
      draft: string;
      revision: number;
      /** True when the revision limit sent the conversation here; `pendingFeedback` was not worked in. */
      forced: boolean;
      pendingFeedback: string | null;
    }
  | { kind: "completed"; conversationId: string; pdfUrl: string; pdfBlobName: string; approvalTimestamp: string }
  | { kind: "rejected"; conversationId: string }
  | { kind: "clarify"; conversationId: string; text: string }
  | { kind: "unknown"; conversationId: string };

/**
 * Options of {@link TwiAssistant}.
 *
 * @example
 * new TwiAssistant({ graph, now: () => new Date() });
 */
export interface TwiAssistantOptions {
  graph: TwiGraph;
  /** Time of the final approval when the caller gives none. */
  now?: () => Date;
}

/**
 * Runs conversations on the graph. Calls on one conversation are serialised in this process; the
 * checkpointer's lease keeps other processes out while a run is in progress.
 *
 * @example
 * const assistant = new TwiAssistant({ graph });
 * let view = await assistant.start({ conversation_id: "c1", user_id: "u1", tenant_id: "acme", channel: "cli", message: "…" });
 * view = await assistant.decide("c1", { action: "approved" });
 * view = await assistant.decide("c1", { action: "final_approved" }); // { kind: "completed", pdfUrl, … }
 */
export class TwiAssistant {
  readonly graph: TwiGraph;
  readonly #now: () => Date;
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(options: TwiAssistantOptions) {
    this.graph = options.graph;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Starts a conversation and runs it to its first pause (or its end). Starting a conversation that
   * already exists changes nothing and returns where it stands, so a redelivered webhook is harmless;
   * one whose last run failed (a model error) is continued from the failed step.
   */
  start(start: ConversationStart): Promise<ConversationView> {
    return this.#serial(start.conversation_id, async () => {
      const config = { threadId: start.conversation_id };
      const existing = await this.graph.getState(config);
      if (existing.values.conversation_id === "") {
        await this.graph.invoke(initialState(start), config);
      } else if (existing.next.length > 0 && !PAUSES.has(existing.next[0] ?? "")) {
        // An earlier run failed mid-way (the model was unreachable): continue it. Steps that had
        // finished, the intent call among them, are not run again.
        await this.graph.invoke(null, config);
      }
      return this.#view(start.conversation_id);
    });
  }

  /**
   * Answers the pause the conversation is at with the seed's state update, and runs on to the next
   * pause or the end. Throws {@link DecisionError} when the conversation is not at that pause.
   */
  decide(conversationId: string, decision: ReviewDecision): Promise<ConversationView> {
    return this.#serial(conversationId, async () => {
      const config = { threadId: conversationId };
      const snapshot = await this.graph.getState(config);
      if (snapshot.values.conversation_id === "") {
        throw new DecisionError(`There is no conversation "${conversationId}".`, "UNKNOWN_CONVERSATION");
      }
      const pause = snapshot.next[0];
      if (pause === undefined) {
        throw new DecisionError(`Conversation "${conversationId}" is not waiting for a decision.`, "NOT_PAUSED");
      }
      if (pause !== pauseOf(decision)) {
        throw new DecisionError(
          `Conversation "${conversationId}" waits at "${pause}", not at "${pauseOf(decision)}".`,
          "WRONG_PAUSE",
        );
      }
      await this.graph.updateState(config, resumeUpdate(decision, this.#now));
      await this.graph.invoke(null, config);
      return this.#view(conversationId);
    });
  }

  /** Where a conversation stands. */
  view(conversationId: string): Promise<ConversationView> {
    return this.#view(conversationId);
  }

  /** The conversation's state values. */
  async state(conversationId: string): Promise<AgentState> {
    return (await this.graph.getState({ threadId: conversationId })).values;
  }

  async #view(conversationId: string): Promise<ConversationView> {
    const snapshot = await this.graph.getState({ threadId: conversationId });
    return viewOf(snapshot.values, snapshot.next);
  }

  #serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(key, settled);
    void settled.then(() => {
      if (this.#queues.get(key) === settled) this.#queues.delete(key);
    });
    return run;
  }
}

/**
 * Derives the view from a state snapshot.
 *
 * @example
 * viewOf(snapshot.values, snapshot.next);
 */
export function viewOf(s: AgentState, next: readonly string[]): ConversationView {
  const conversationId = s.conversation_id;
  const revision = s.draft_metadata?.revision ?? 0;
  if (next[0] === "review") {
    return {
      kind: "review",
      conversationId,
      draft: s.draft ?? "",
      revision,
      revisionsLeft: Math.max(0, MAX_REVISIONS - s.revision_count),
      isInstruction: parseTwiText(s.draft ?? "") !== undefined,
    };
  }
  if (next[0] === "approve") {
    const forced = s.revision_count > MAX_REVISIONS;
    return {
      kind: "final_approval",
      conversationId,
      draft: s.draft ?? "",
      revision,
      forced,
      pendingFeedback: forced ? s.revision_feedback : null,
    };
  }
  if (s.status === "completed" && s.pdf_url && s.pdf_blob_name) {
    return {
      kind: "completed",
      conversationId,
      pdfUrl: s.pdf_url,
      pdfBlobName: s.pdf_blob_name,
      approvalTimestamp: s.approval_timestamp ?? "",
    };
  }
  if (s.status === "rejected") return { kind: "rejected", conversationId };
  if (s.intent === "unknown") return { kind: "clarify", conversationId, text: lastAssistantText(s) };
  return { kind: "unknown", conversationId };
}
