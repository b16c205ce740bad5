/**
 * The Teams side of the seed: a message starts a conversation and gets the review card; a card's
 * submit resumes the graph with its decision and gets the next card (final approval) or the result.
 */

import { DecisionError, type ReviewDecision } from "../../decisions.js";
import type { ConversationView, TwiAssistant } from "../../twi-assistant.js";
import { bestEffort } from "../best-effort.js";
import { decisionErrorText, TEXT, viewText } from "../view-text.js";
import type { BotConnectorClient, OutgoingActivity } from "./bot-connector-client.js";
import {
  activityTenant,
  messageText,
  readSubmitData,
  type TeamsActivity,
  teamsThreadPrefix,
} from "./teams-activity.js";
import { cardAttachment, finalApprovalCard, reviewCard } from "./teams-cards.js";

/**
 * The thread id of a conversation started by a Teams message: the prefix of its Teams conversation
 * and tenant ({@link teamsThreadPrefix}) and the activity id, so a redelivered activity finds its
 * conversation instead of starting another, and a card of it works only in that Teams conversation.
 * `undefined` for an activity without a conversation id or with two tenants.
 *
 * @example
 * teamsConversationId({ id: "1700000000000", conversation: { id: "a:1", tenantId: "t1" } } as TeamsActivity);
 * // "msteams-<24 hex>-1700000000000"
 */
export function teamsConversationId(activity: TeamsActivity): string | undefined {
  const prefix = teamsThreadPrefix(activity);
  if (prefix === undefined) return undefined;
  return `${prefix}${(activity.id ?? "").replace(/[^A-Za-z0-9_.:-]/g, "_").slice(0, 100)}`;
}

/**
 * Why an activity may not act: the status the webhook answers and the reason.
 *
 * @example
 * const verdict = await bot.admit(activity); if (!verdict.ok) return c.json({ error: verdict.reason }, verdict.status);
 */
export type Admission = { ok: true } | { ok: false; status: 400 | 403; reason: string };

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

  /**
   * Decides, before the webhook answers, whether a (verified) activity may act: a message needs a
   * conversation, one tenant, and a `serviceUrl` replies may go to; a card submit may only name a
   * thread of the Teams conversation and tenant it arrived in. A refused activity changes nothing.
   */
  async admit(activity: TeamsActivity): Promise<Admission> {
    if (activity.type !== "message") return { ok: true };
    if (!activity.conversation?.id || !activity.serviceUrl) {
      return { ok: false, status: 400, reason: "a message activity needs conversation.id and serviceUrl" };
    }
    const prefix = teamsThreadPrefix(activity);
    if (prefix === undefined) return { ok: false, status: 403, reason: "the activity names two different tenants" };
    if (!this.#client.canReach(activity.serviceUrl)) {
      return {
        ok: false,
        status: 403,
        reason: `replies may not go to ${activity.serviceUrl}: its host is not in TEAMS_SERVICE_URL_HOSTS`,
      };
    }
    const submit = readSubmitData(activity.value);
    if (submit) {
      if (!submit.conversationId.startsWith(prefix)) {
        return { ok: false, status: 403, reason: "this card belongs to another Teams conversation" };
      }
      const state = await this.#assistant.state(submit.conversationId);
      if (state.conversation_id !== "" && (state.channel !== "msteams" || state.tenant_id !== tenantOf(activity))) {
        return { ok: false, status: 403, reason: "this card belongs to another Teams conversation" };
      }
    }
    return { ok: true };
  }

  /**
   * Reacts to a message (new request or card submit); other activity types are ignored. A card that
   * names a thread of another Teams conversation gets "not found" and changes nothing.
   */
  async handle(activity: TeamsActivity): Promise<void> {
    if (activity.type !== "message" || !activity.serviceUrl || !activity.conversation?.id) return;
    const prefix = teamsThreadPrefix(activity);
    const start = teamsConversationId(activity);
    if (prefix === undefined || start === undefined) return;
    const reply = (out: OutgoingActivity) =>
      this.#client.send(activity.serviceUrl ?? "", activity.conversation?.id ?? "", {
        ...out,
        ...(activity.id ? { replyToId: activity.id } : {}),
      });
    const submit = readSubmitData(activity.value);
    if (submit) {
      // A conversation may only decide on its own threads, whatever ids a card carries.
      if (!submit.conversationId.startsWith(prefix)) {
        const text = decisionErrorText(new DecisionError("foreign", "UNKNOWN_CONVERSATION"));
        await reply({ type: "message", text, textFormat: "plain" });
        return;
      }
      let view: ConversationView;
      try {
        view = await this.#assistant.decide(submit.conversationId, decisionOf(submit.action, submit.feedback), {
          pause: submit.pauseId ?? "",
        });
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
    // cosmetic: a failing typing indicator must not drop the message
    await bestEffort("Teams typing indicator", () => reply({ type: "typing" }));
    let view: ConversationView;
    try {
      view = await this.#assistant.start({
        conversation_id: start,
        user_id: activity.from?.aadObjectId ?? activity.from?.id ?? "unknown",
        tenant_id: tenantOf(activity),
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

/** The `tenant_id` a Teams conversation is stored with (`msteams` when the activity names none). */
function tenantOf(activity: TeamsActivity): string {
  return activityTenant(activity) || "msteams";
}
