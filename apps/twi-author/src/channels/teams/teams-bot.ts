/**
 * The Teams side of the seed: a message starts a conversation and gets the review card; a card's
 * submit resumes the graph with its decision and gets the next card (final approval) or the result.
 */
import type { ReviewDecision } from "../../decisions.js";
import type { ConversationView, TwiAssistant } from "../../twi-assistant.js";
import { decisionErrorText, TEXT, viewText } from "../view-text.js";
import type { BotConnectorClient, OutgoingActivity } from "./bot-connector-client.js";
import { messageText, readSubmitData, type TeamsActivity } from "./teams-activity.js";
import { cardAttachment, finalApprovalCard, reviewCard } from "./teams-cards.js";

/**
 * The thread id of a conversation started by a Teams message: `msteams-<activity id>`, so a
 * redelivered activity finds its conversation instead of starting another.
 *
 * @example
 * teamsConversationId({ id: "1700000000000" } as TeamsActivity); // "msteams-1700000000000"
 */
export function teamsConversationId(activity: TeamsActivity): string {
  return `msteams-${(activity.id ?? "").replace(/[^A-Za-z0-9_.:-]/g, "_").slice(0, 100)}`;
}

/**
 * The message that shows a view: a card at the pauses, text otherwise.
 *
 * @example
 * activityFor(view); // { type: "message", attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", … }] }
 */
export function activityFor(view: ConversationView): OutgoingActivity {
  if (view.kind === "review") return { type: "message", attachments: [cardAttachment(reviewCard(view))] };
  if (view.kind === "final_approval")
    return { type: "message", attachments: [cardAttachment(finalApprovalCard(view))] };
  return { type: "message", text: viewText(view), textFormat: "plain" };
}

function decisionOf(action: string, feedback: string | undefined): ReviewDecision {
  if (action === "revision_requested") return { action, feedback: feedback ?? "" };
  if (action === "final_approved") return { action };
  return { action: action === "approved" ? "approved" : "rejected" };
}

/**
 * Handles one incoming activity.
 *
 * @example
 * const bot = new TeamsBot(assistant, new BotConnectorClient(config.teams));
 * await bot.handle(activity);
 */
export class TeamsBot {
  readonly #assistant: TwiAssistant;
  readonly #client: BotConnectorClient;

  constructor(assistant: TwiAssistant, client: BotConnectorClient) {
    this.#assistant = assistant;
    this.#client = client;
  }

  /** Reacts to a message (new request or card submit); other activity types are ignored. */
  async handle(activity: TeamsActivity): Promise<void> {
    if (activity.type !== "message" || !activity.serviceUrl || !activity.conversation?.id) return;
    const reply = (out: OutgoingActivity) =>
      this.#client.send(activity.serviceUrl ?? "", activity.conversation?.id ?? "", {
        ...out,
        ...(activity.id ? { replyToId: activity.id } : {}),
      });
    const submit = readSubmitData(activity.value);
    if (submit) {
      let view: ConversationView;
      try {
        view = await this.#assistant.decide(submit.conversationId, decisionOf(submit.action, submit.feedback));
      } catch (error) {
        await reply({ type: "message", text: decisionErrorText(error), textFormat: "plain" });
        if (decisionErrorText(error) === TEXT.failed) throw error;
        return;
      }
      await reply(activityFor(view));
      return;
    }
    const text = messageText(activity);
    if (text === "") return;
    await reply({ type: "typing" });
    let view: ConversationView;
    try {
      view = await this.#assistant.start({
        conversation_id: teamsConversationId(activity),
        user_id: activity.from?.aadObjectId ?? activity.from?.id ?? "unknown",
        tenant_id: activity.conversation.tenantId ?? activity.channelData?.tenant?.id ?? "msteams",
        channel: "msteams",
        message: text,
      });
    } catch (error) {
      await reply({ type: "message", text: TEXT.failed, textFormat: "plain" });
      throw error;
    }
    await reply(activityFor(view));
  }
}
