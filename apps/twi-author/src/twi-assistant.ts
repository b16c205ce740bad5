/**
 * The channel-neutral face of the graph: start a conversation, answer a pause, see where a
 * conversation stands. Teams, Telegram and the CLI all go through it, and it goes through the Trellis
 * server's run service: every turn is a run of the server, with one thread record (visible to
 * `GET /threads/{id}`, `/threads/search` and the studio), the server's queue and multitask strategy,
 * and the same events as any other door.
 */
import { createHash } from "node:crypto";
import { type StateSnapshot, TrellisError } from "@trellis/core";
import type { RunEnd, RunService } from "@trellis/server";
import { DecisionError, pauseOf, type ReviewDecision, resumeUpdate } from "./decisions.js";
import { lastAssistantText, publishRefusal } from "./nodes.js";
import { type AgentState, type ConversationStart, initialState, MAX_REVISIONS } from "./state.js";
import { parseTwiText } from "./twi-document.js";

/** The assistant id the app is served under. */
export const TWI_ASSISTANT_ID = "twi-author";

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
      /**
       * The id of the pause this view shows — the checkpoint the conversation stopped at: a card
       * carries it, and a decision that names it applies to that pause only.
       */
      pauseId: string;
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
      pauseId: string;
      draft: string;
      revision: number;
      /** True when the revision limit sent the conversation here; `pendingFeedback` was not worked in. */
      forced: boolean;
      pendingFeedback: string | null;
    }
  | { kind: "completed"; conversationId: string; pdfUrl: string; pdfBlobName: string; approvalTimestamp: string }
  | { kind: "rejected"; conversationId: string }
  /** A step failed (status `"error"`): starting the conversation again (a redelivery) continues it. */
  | { kind: "error"; conversationId: string }
  | { kind: "clarify"; conversationId: string; text: string }
  | { kind: "unknown"; conversationId: string };

/**
 * Options of {@link TwiAssistant}.
 *
 * @example
 * new TwiAssistant({ runs: ctx.runs, now: () => new Date() });
 */
export interface TwiAssistantOptions {
  /** The server's run service (`ctx.runs`), or how to get one (an in-process server, opened on first use). */
  runs: RunService | (() => Promise<RunService>);
  /** The assistant the conversations run on. Default `twi-author`. */
  assistantId?: string;
  /** Time of the final approval when the caller gives none. */
  now?: () => Date;
}

/**
 * How a decision names the pause it answers: the pause id the card was shown for (the checkpoint the
 * conversation stopped at), or its {@link pauseTag} (Telegram buttons carry at most 64 bytes).
 *
 * @example
 * await assistant.decide(id, { action: "approved" }, { pause: view.pauseId });
 */
export interface DecideOptions {
  pause?: string | undefined;
}

/** Characters of a pause tag. */
export const PAUSE_TAG_LENGTH = 12;

/**
 * The short form of a pause id that a Telegram button carries: 12 hex digits of its SHA-256.
 *
 * @example
 * pauseTag(view.pauseId); // "3f2a9c0b41d7"
 */
export function pauseTag(pauseId: string): string {
  return createHash("sha256").update(pauseId).digest("hex").slice(0, PAUSE_TAG_LENGTH);
}

/** True when `named` (a pause id or its tag) names the pause `id`. */
function names(named: string, id: string): boolean {
  return named !== "" && (named === id || named === pauseTag(id));
}

/**
 * The run id of the run that starts a conversation: derived from the thread id, so a redelivered
 * message finds the run its first delivery started instead of starting another.
 *
 * @example
 * startRunId("telegram-42-5"); // "3f2a…-…" (a UUID-shaped hash)
 */
export function startRunId(threadId: string): string {
  const h = createHash("sha256").update(`twi-author:start:${threadId}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function isCode(error: unknown, ...codes: string[]): boolean {
  return error instanceof TrellisError && codes.includes(error.code);
}

/**
 * Runs conversations through the server's run service. A verified webhook acts as the app (`as:
 * "app"`); each turn waits for its run. Starts and decisions use the `reject` multitask strategy: a
 * second decision while one is worked on is refused (`BUSY`), never queued behind it.
 *
 * @example
 * const assistant = new TwiAssistant({ runs: server.runs });
 * let view = await assistant.start({ conversation_id: "c1", user_id: "u1", tenant_id: "acme", channel: "cli", message: "…" });
 * view = await assistant.decide("c1", { action: "approved" }, { pause: view.kind === "review" ? view.pauseId : undefined });
 * view = await assistant.decide("c1", { action: "final_approved" }); // { kind: "completed", pdfUrl, … }
 */
export class TwiAssistant {
  readonly assistantId: string;
  readonly #runs: () => Promise<RunService>;
  readonly #now: () => Date;

  constructor(options: TwiAssistantOptions) {
    const runs = options.runs;
    this.#runs = typeof runs === "function" ? runs : () => Promise.resolve(runs);
    this.assistantId = options.assistantId ?? TWI_ASSISTANT_ID;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Starts a conversation and runs it to its first pause (or its end). Starting a conversation that
   * already exists starts nothing: it waits for the run its first delivery started and returns where
   * it stands, so a redelivered webhook is harmless; one whose last run failed (a model error) is
   * continued from the failed step.
   */
  async start(start: ConversationStart): Promise<ConversationView> {
    const runs = await this.#runs();
    const threadId = start.conversation_id;
    const runId = startRunId(threadId);
    if (!(await this.#snapshot(runs, threadId)).checkpointId) {
      let end: RunEnd | undefined;
      try {
        end = await runs.invoke({
          assistantId: this.assistantId,
          threadId,
          as: "app",
          runId,
          input: initialState(start),
          metadata: { source: start.channel, user_id: start.user_id, tenant_id: start.tenant_id },
          multitaskStrategy: "reject",
        });
      } catch (error) {
        // the same message delivered twice at once: the first delivery's run is on it
        const first = await runs.wait(runId).catch(() => undefined);
        if (!first && !isCode(error, "CONFLICT")) throw error;
      }
      if (end) {
        check(runs, end);
        return this.view(threadId);
      }
    } else {
      await runs.wait(runId).catch((error: unknown) => {
        if (!isCode(error, "NOT_FOUND")) throw error;
      });
    }
    const now = await this.#snapshot(runs, threadId);
    if (now.checkpointId && now.next.length > 0 && now.interrupts.length === 0 && !pauseOfSnapshot(now)) {
      // An earlier run failed mid-way (the model was unreachable): continue it. Steps that had
      // finished, the intent call among them, are not run again.
      try {
        check(
          runs,
          await runs.invoke({
            assistantId: this.assistantId,
            threadId,
            as: "app",
            input: null,
            metadata: { source: start.channel, continues: "failed run" },
            multitaskStrategy: "reject",
          }),
        );
      } catch (error) {
        if (!isCode(error, "CONFLICT")) throw error;
      }
    }
    return this.view(threadId);
  }

  /**
   * Answers the pause the conversation is at with the seed's resume update, and runs on to the next
   * pause or the end. With `options.pause` (the pause id the card was shown for), a decision for a
   * pause the conversation has since left is refused and changes nothing: `NOT_PAUSED` once it ended,
   * `WRONG_PAUSE` at the other pause, `STALE` at a later pause of the same kind (or when the run
   * service finds the pause answered meanwhile), `BUSY` while another decision runs.
   */
  async decide(
    conversationId: string,
    decision: ReviewDecision,
    options: DecideOptions = {},
  ): Promise<ConversationView> {
    const answer = resumeUpdate(decision, this.#now);
    const runs = await this.#runs();
    const snapshot = await this.#snapshot(runs, conversationId);
    if (!snapshot.checkpointId) {
      throw new DecisionError(`There is no conversation "${conversationId}".`, "UNKNOWN_CONVERSATION");
    }
    const pause = pauseOfSnapshot(snapshot);
    if (!pause) {
      throw new DecisionError(`Conversation "${conversationId}" is not waiting for a decision.`, "NOT_PAUSED");
    }
    if (pause !== pauseOf(decision)) {
      throw new DecisionError(
        `Conversation "${conversationId}" waits at "${pause}", not at "${pauseOf(decision)}".`,
        "WRONG_PAUSE",
      );
    }
    const refusal =
      decision.action === "approved" || decision.action === "final_approved"
        ? publishRefusal(snapshot.values.draft)
        : undefined;
    if (refusal !== undefined) {
      throw new DecisionError(`Conversation "${conversationId}": ${refusal}`, "NOT_PUBLISHABLE");
    }
    const at = snapshot.checkpointId;
    if (options.pause !== undefined && !names(options.pause, at)) {
      throw new DecisionError(
        `Conversation "${conversationId}" has left the pause ${options.pause || "(none named)"} this decision was made for: it waits at ${at}.`,
        "STALE",
      );
    }
    let end: RunEnd;
    try {
      // The seed's resume: the decision's state update, then on from the pause. The run applies only
      // if the conversation still stands at this checkpoint when it starts (else RESUME_MISMATCH).
      end = await runs.invoke({
        assistantId: this.assistantId,
        threadId: conversationId,
        as: "app",
        command: { update: answer },
        kwargs: { expectedCheckpointId: at },
        metadata: { decision: decision.action, pause },
        multitaskStrategy: "reject",
        ifNotExists: "reject",
      });
    } catch (error) {
      if (isCode(error, "CONFLICT")) {
        throw new DecisionError(`Conversation "${conversationId}" is busy with another decision.`, "BUSY");
      }
      if (isCode(error, "RESUME_MISMATCH", "NOTHING_TO_RESUME")) {
        throw new DecisionError(`Conversation "${conversationId}" has left the pause ${at}.`, "STALE");
      }
      throw error;
    }
    check(runs, end);
    return this.view(conversationId);
  }

  /** Where a conversation stands. */
  async view(conversationId: string): Promise<ConversationView> {
    const snapshot = await this.#snapshot(await this.#runs(), conversationId);
    return viewOf(snapshot.values, snapshot.next, pauseOfSnapshot(snapshot) ? snapshot.checkpointId : "");
  }

  /** The conversation's state values (the schema's defaults for a conversation that does not exist). */
  async state(conversationId: string): Promise<AgentState> {
    return (await this.#snapshot(await this.#runs(), conversationId)).values;
  }

  async #snapshot(runs: RunService, threadId: string): Promise<StateSnapshot<AgentState>> {
    return (await runs.graph(this.assistantId).graph.getState({ threadId })) as StateSnapshot<AgentState>;
  }
}

/**
 * The pause the conversation waits at: `review` or `approve` next, asking there (its interrupt) or
 * stopped before it with a decision to apply (a state update written, or a run that failed there).
 */
function pauseOfSnapshot(snapshot: StateSnapshot<AgentState>): "review" | "approve" | undefined {
  const next = snapshot.next[0];
  if (snapshot.next.length !== 1 || (next !== "review" && next !== "approve")) return undefined;
  return snapshot.interrupts.every((i) => i.node === next) ? next : undefined;
}

/** Throws when the run failed: a refused resume as `STALE`, anything else as the service reports it. */
function check(runs: RunService, end: RunEnd): void {
  const error = runs.errorOf(end);
  if (!error) return;
  if (error.code === "RESUME_MISMATCH" || error.code === "NOTHING_TO_RESUME") {
    throw new DecisionError(error.message, "STALE");
  }
  throw error;
}

/**
 * Derives the view from a state snapshot.
 *
 * @example
 * viewOf(snapshot.values, snapshot.next, snapshot.interrupts[0]?.id);
 */
export function viewOf(s: AgentState, next: readonly string[], pauseId = ""): ConversationView {
  const conversationId = s.conversation_id;
  const revision = s.draft_metadata?.revision ?? 0;
  if (next[0] === "review") {
    return {
      kind: "review",
      conversationId,
      pauseId,
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
      pauseId,
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
  if (s.status === "error") return { kind: "error", conversationId };
  if (s.intent === "unknown") return { kind: "clarify", conversationId, text: lastAssistantText(s) };
  return { kind: "unknown", conversationId };
}
