/**
 * The two pauses as stock UIs see them: `review` and `approve` call `interrupt()` with LangChain's
 * human-in-the-loop request (`action_requests` / `review_configs`, from `@trellis/agents`), so the
 * official SDK's `useStream` and agent-chat-ui offer approve / edit / reject buttons, and read the
 * `{ decisions: [...] }` they answer with. The app's own route — the seed's state update
 * (`{ status, revision_feedback?, approval_timestamp? }`) and then continue — keeps working: a node that
 * finds a decision already written at its pause acts on it without asking (see `nodes.ts`).
 */
import {
  editedActionOf,
  hitlRequest,
  type ReviewDecisionType,
  readDecisions,
  type ToolReviewRequest,
} from "@trellis/agents";
import type { NodeContext } from "@trellis/core";
import { isPublishable, publishRefusal, withAiLabel } from "./nodes.js";
import type { AgentState, AgentUpdate } from "./state.js";
import { parseTwiText } from "./twi-document.js";

/** The action a pause asks about, by pause. */
export const PAUSE_ACTIONS = { review: "twi_draft_review", approve: "twi_publish" } as const;

/**
 * A pause's interrupt value: LangChain's HITL request (both spellings) plus which pause it is, the
 * conversation and the draft's revision, and — when it asks again — why the last answer was not taken.
 *
 * @example
 * if (value.pause === "review") value.action_requests[0]?.args.draft;
 */
export interface TwiPauseRequest extends ToolReviewRequest {
  pause: "review" | "approve";
  conversation_id: string;
  revision: number;
  /** Why the previous answer was not a decision; the pause stays until one arrives. */
  not_a_decision?: string;
}

const REVIEW_HELP =
  "Jóváhagyás (approve): tovább a végső jóváhagyáshoz. Szerkesztés (edit, args.draft): a szerkesztett vázlat kerül jóváhagyásra. " +
  "Elutasítás üzenettel (reject + message): javítás kérése ezzel a visszajelzéssel; üzenet nélkül: a vázlat elutasítva, a beszélgetés véget ér.";
const ASK_BACK_HELP =
  "Ez a vázlat nem munkautasítás, hanem az asszisztens kérdései: nem hagyható jóvá. Válasz (respond + message) vagy " +
  "elutasítás üzenettel (reject + message): javítás kérése a válasszal; üzenet nélküli elutasítás: vége. Szerkesztés (edit, args.draft): " +
  "egy teljes, hat részes munkautasítás.";
const FINAL_HELP =
  "Végső jóváhagyás (approve): a PDF elkészül és közzétételre kerül. Szerkesztés (edit, args.draft): a szerkesztett szöveg " +
  "visszakerül felülvizsgálatra (nem kerül közvetlenül közzétételre). Elutasítás (reject): semmi sem kerül közzétételre, a beszélgetés véget ér.";

/**
 * The decisions a pause offers: `approve` only for a draft that may be published (a complete
 * instruction without gap markers); an ask-back draft is answered (`respond`).
 */
function allowedAt(pause: "review" | "approve", draft: string | null): ReviewDecisionType[] {
  const approvable = publishRefusal(draft) === undefined;
  if (approvable) return ["approve", "edit", "reject"];
  return pause === "review" && !isPublishable(draft) ? ["edit", "reject", "respond"] : ["edit", "reject"];
}

/** What the final approval tells the reviewer about lines that will not be published (the reviewer log). */
function droppedNotes(draft: string | null): string {
  const notes = parseTwiText(draft ?? "")?.notes ?? [];
  return notes.length === 0
    ? ""
    : `\nA vázlat elején álló ${notes.length} felülvizsgálói megjegyzés (napló) nem kerül a PDF-be.`;
}

/**
 * The interrupt value of a pause.
 *
 * @example
 * pauseRequest("review", state, "c1"); // { pause: "review", action_requests: [{ name: "twi_draft_review", args: { draft } … }], … }
 */
export function pauseRequest(pause: "review" | "approve", state: AgentState, conversationId: string): TwiPauseRequest {
  const publishable = isPublishable(state.draft);
  const refusal = publishRefusal(state.draft);
  const revision = state.draft_metadata?.revision ?? state.revision_count;
  const help = pause === "approve" ? FINAL_HELP : publishable ? REVIEW_HELP : ASK_BACK_HELP;
  const title =
    pause === "approve"
      ? `Végső jóváhagyás: TWI munkautasítás (${revision}. változat) közzététele PDF-ként.`
      : `A TWI vázlat (${revision}. változat) felülvizsgálata.`;
  const forced =
    pause === "approve" && state.status === "revision_requested" && state.revision_feedback
      ? `\nA javítási korlát elérve; ez a visszajelzés nem került be: ${state.revision_feedback}`
      : "";
  const blocked = publishable && refusal !== undefined ? `\n${refusal}` : "";
  const dropped = pause === "approve" ? droppedNotes(state.draft) : "";
  return {
    pause,
    conversation_id: conversationId,
    revision,
    ...hitlRequest([
      {
        name: PAUSE_ACTIONS[pause],
        args: { draft: state.draft ?? "" },
        description: `${title}${forced}${blocked}${dropped}\n\n${help}`,
        allowedDecisions: allowedAt(pause, state.draft),
      },
    ]),
  };
}

/**
 * What a decision at a pause does, as the node's state update, or why it is not a decision.
 *
 * @example
 * decisionUpdate("review", state, { decisions: [{ type: "reject", message: "Biztonság: sisak" }] }, now);
 * // { update: { status: "revision_requested", revision_feedback: "Biztonság: sisak", … } }
 */
export function decisionUpdate(
  pause: "review" | "approve",
  state: AgentState,
  answer: unknown,
  context: { now: () => string; id: (what: string) => string },
): { update: AgentUpdate } | { reason: string } {
  const allowed = allowedAt(pause, state.draft);
  const read = readDecisions(answer, [{ name: PAUSE_ACTIONS[pause], allowedDecisions: allowed }]);
  if (!read.ok) {
    // an approval of a draft that may not be published: say why, not only which types are offered
    const refusal = publishRefusal(state.draft);
    const asApproval = readDecisions(answer, [{ name: PAUSE_ACTIONS[pause], allowedDecisions: ["approve"] }]);
    return { reason: refusal !== undefined && asApproval.ok ? `${read.reason} ${refusal}` : read.reason };
  }
  const decision = read.decisions[0];
  const said = (content: string) => ({ id: context.id(`${pause}-decision`), role: "user" as const, content });
  switch (decision?.type) {
    case "approve":
      return pause === "review"
        ? {
            update: {
              status: "approved",
              approval_timestamp: null,
              approved_draft: state.draft,
              messages: [said("Döntés: approved")],
            },
          }
        : {
            update: {
              status: "approved",
              approval_timestamp: context.now(),
              messages: [said("Végső jóváhagyás")],
            },
          };
    case "edit": {
      const text = editedActionOf(decision)?.args.draft;
      if (typeof text !== "string" || text.trim() === "") {
        return { reason: 'An edit needs the edited draft as text: edited_action: { args: { draft: "…" } }.' };
      }
      const draft = withAiLabel(text);
      const refusal = publishRefusal(draft);
      if (refusal !== undefined) return { reason: `The edited draft: ${refusal}` };
      if (pause === "approve") {
        // an edit at the final approval is a new draft: it goes back to the review, never straight out
        return {
          update: {
            draft,
            status: "review_needed",
            approval_timestamp: null,
            messages: [said(`Szerkesztett vázlat a végső jóváhagyásnál, vissza felülvizsgálatra:\n${draft}`)],
          },
        };
      }
      return {
        update: {
          draft,
          status: "approved",
          approval_timestamp: null,
          approved_draft: draft,
          messages: [said(`Szerkesztett vázlat, jóváhagyva:\n${draft}`)],
        },
      };
    }
    case "reject":
    case "respond": {
      const message = decision.message?.trim() ?? "";
      if (pause === "review" && message !== "") {
        return {
          update: {
            status: "revision_requested",
            revision_feedback: message,
            messages: [said(`Javítás kérése: ${message}`)],
          },
        };
      }
      if (decision.type === "respond") return { reason: "A response needs a message: the answer to the questions." };
      return {
        update: {
          status: "rejected",
          approval_timestamp: null,
          messages: [said(message ? `Elutasítva: ${message}` : "Döntés: rejected")],
        },
      };
    }
    default:
      return { reason: `${JSON.stringify(decision)} is not a decision.` };
  }
}

/**
 * Asks at a pause until the answer is a decision: a malformed answer (no `decisions`, a type the pause
 * does not allow, an edit without a publishable draft) asks again with the reason, and the pause stays;
 * nothing is acted on.
 *
 * @example
 * return askAtPause("approve", state, ctx, { now, id });
 */
export function askAtPause(
  pause: "review" | "approve",
  state: AgentState,
  ctx: NodeContext,
  context: { conversationId: string; now: () => string; id: (what: string) => string },
): AgentUpdate {
  const request = pauseRequest(pause, state, context.conversationId);
  let read = decisionUpdate(pause, state, ctx.interrupt(request), context);
  while ("reason" in read) {
    read = decisionUpdate(pause, state, ctx.interrupt({ ...request, not_a_decision: read.reason }), context);
  }
  return read.update;
}
