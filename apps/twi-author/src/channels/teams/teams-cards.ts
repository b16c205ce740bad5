/**
 * Adaptive Cards of the two pauses: the review card (approve / request a revision with a text field /
 * reject) and the final approval card. Their Action.Submit data resumes the graph, and names the
 * pause (interrupt id) the card was shown for, so a card answers that pause once and no later one.
 */
import type { ConversationView } from "../../twi-assistant.js";
import { TEXT } from "../view-text.js";
import type { CardSubmitData } from "./teams-activity.js";

/** An Adaptive Card as JSON. */
export type AdaptiveCard = Record<string, unknown> & { type: "AdaptiveCard" };

/** Teams cards carry at most ~28 KB; a longer draft is cut, with a note. */
const MAX_DRAFT_CHARS = 18_000;

function draftBlocks(draft: string): Record<string, unknown>[] {
  const text =
    draft.length > MAX_DRAFT_CHARS ? `${draft.slice(0, MAX_DRAFT_CHARS)}\n…(a vázlat folytatása a PDF-ben)` : draft;
  // One TextBlock per paragraph keeps Teams' markdown from joining lines.
  return text
    .split(/\n\s*\n/)
    .map((p) => ({ type: "TextBlock", text: p.replace(/\n/g, "\n\n"), wrap: true, spacing: "Small" }));
}

function submit(title: string, data: CardSubmitData, style?: "positive" | "destructive"): Record<string, unknown> {
  return { type: "Action.Submit", title, data, ...(style ? { style } : {}) };
}

/**
 * The review card: the draft, a feedback field and three actions.
 *
 * @example
 * reviewCard({ kind: "review", conversationId: "c1", pauseId: "9f…", draft: "…", revision: 0, revisionsLeft: 3, isInstruction: true });
 */
export function reviewCard(view: Extract<ConversationView, { kind: "review" }>): AdaptiveCard {
  const at = { twi: "decision", conversationId: view.conversationId, pauseId: view.pauseId } as const;
  const actions = [
    // a draft that is not an instruction (questions, an answer) cannot be approved
    ...(view.isInstruction ? [submit(TEXT.approve, { ...at, action: "approved" }, "positive")] : []),
    submit(TEXT.requestRevision, { ...at, action: "revision_requested" }),
    submit(TEXT.reject, { ...at, action: "rejected" }, "destructive"),
  ];
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.5",
    body: [
      { type: "TextBlock", text: TEXT.reviewTitle(view.revision), weight: "Bolder", size: "Medium", wrap: true },
      ...draftBlocks(view.draft),
      {
        type: "TextBlock",
        text: view.isInstruction ? TEXT.reviewHint(view.revisionsLeft) : TEXT.notInstruction,
        wrap: true,
        isSubtle: true,
      },
      {
        type: "Input.Text",
        id: "feedback",
        isMultiline: true,
        placeholder: TEXT.feedbackPlaceholder,
        label: TEXT.requestRevision,
      },
    ],
    actions,
  };
}

/**
 * The final approval card.
 *
 * @example
 * finalApprovalCard({ kind: "final_approval", conversationId: "c1", pauseId: "9f…", draft: "…", revision: 1, forced: false, pendingFeedback: null });
 */
export function finalApprovalCard(view: Extract<ConversationView, { kind: "final_approval" }>): AdaptiveCard {
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.5",
    body: [
      { type: "TextBlock", text: TEXT.finalTitle, weight: "Bolder", size: "Medium", wrap: true },
      ...(view.forced
        ? [{ type: "TextBlock", text: TEXT.forced(view.pendingFeedback), wrap: true, color: "Warning" }]
        : []),
      ...draftBlocks(view.draft),
      { type: "TextBlock", text: TEXT.finalHint, wrap: true, isSubtle: true },
    ],
    actions: [
      submit(
        TEXT.finalApprove,
        { twi: "decision", conversationId: view.conversationId, pauseId: view.pauseId, action: "final_approved" },
        "positive",
      ),
    ],
  };
}

/**
 * A Bot Framework attachment that carries a card.
 *
 * @example
 * { type: "message", attachments: [cardAttachment(reviewCard(view))] };
 */
export function cardAttachment(card: AdaptiveCard): { contentType: string; content: AdaptiveCard } {
  return { contentType: "application/vnd.microsoft.card.adaptive", content: card };
}
