/**
 * The reviewer's answers at the two pauses, and the seed's state updates that carry them.
 */
import type { AgentUpdate } from "./state.js";

/**
 * What a reviewer decides: at `review` approve, request a revision (with feedback) or reject; at
 * `approve` give the final approval.
 *
 * @example
 * const d: ReviewDecision = { action: "revision_requested", feedback: "Biztonság: védőszemüveg kötelező" };
 */
export type ReviewDecision =
  | { action: "approved" }
  | { action: "revision_requested"; feedback: string }
  | { action: "rejected" }
  | { action: "final_approved"; approvalTimestamp?: string };

/**
 * A decision that does not fit the pause the conversation is at, or is incomplete.
 *
 * @example
 * if (error instanceof DecisionError) return c.json({ error: error.message }, 409);
 */
export class DecisionError extends Error {
  override readonly name = "DecisionError";
  constructor(
    message: string,
    /**
     * `STALE`: the card or button was shown for a pause the conversation has left (answered twice,
     * or an older card); `BUSY`: another decision on the conversation is being worked on;
     * `NOT_PUBLISHABLE`: an approval of a draft that is not a TWI instruction (questions, an answer).
     */
    readonly code:
      | "NOT_PAUSED"
      | "WRONG_PAUSE"
      | "STALE"
      | "BUSY"
      | "FEEDBACK_REQUIRED"
      | "UNKNOWN_CONVERSATION"
      | "NOT_PUBLISHABLE",
  ) {
    super(message);
  }
}

/**
 * The seed's resume update for a decision:
 * `{status:"approved"}`, `{status:"revision_requested", revision_feedback}`, `{status:"rejected"}`,
 * and the final `{status:"approved", approval_timestamp}`.
 *
 * @example
 * resumeUpdate({ action: "final_approved" }, () => new Date(0)); // { status: "approved", approval_timestamp: "1970-01-01T00:00:00.000Z" }
 */
export function resumeUpdate(decision: ReviewDecision, now: () => Date): AgentUpdate {
  switch (decision.action) {
    case "approved":
      return { status: "approved" };
    case "rejected":
      return { status: "rejected" };
    case "revision_requested": {
      const feedback = decision.feedback.trim();
      if (feedback === "") {
        throw new DecisionError("A revision request needs feedback: say what to change.", "FEEDBACK_REQUIRED");
      }
      return { status: "revision_requested", revision_feedback: feedback };
    }
    case "final_approved":
      return { status: "approved", approval_timestamp: decision.approvalTimestamp ?? now().toISOString() };
  }
}

/**
 * Which pause a decision belongs to.
 *
 * @example
 * pauseOf({ action: "final_approved" }); // "approve"
 */
export function pauseOf(decision: ReviewDecision): "review" | "approve" {
  return decision.action === "final_approved" ? "approve" : "review";
}
