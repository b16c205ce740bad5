import { createHash } from "node:crypto";

/**
 * The parts of a Bot Framework activity this bot reads and writes.
 *
 * @example
 * const activity: TeamsActivity = { type: "message", id: "1", serviceUrl: "https://smba.trafficmanager.net/emea/",
 *   channelId: "msteams", from: { id: "29:1" }, conversation: { id: "a:1" }, text: "Írj TWI-t…" };
 */
export interface TeamsActivity {
  type: string;
  id?: string;
  timestamp?: string;
  serviceUrl?: string;
  channelId?: string;
  from?: { id: string; name?: string; aadObjectId?: string };
  conversation?: { id: string; tenantId?: string; conversationType?: string };
  recipient?: { id: string; name?: string };
  text?: string;
  /** Action.Submit data of an Adaptive Card, merged with its inputs. */
  value?: unknown;
  channelData?: { tenant?: { id?: string } } & Record<string, unknown>;
  replyToId?: string;
}

/**
 * What an Adaptive Card's submit button sends back (`activity.value`).
 *
 * @example
 * const data: CardSubmitData = { twi: "decision", conversationId: "msteams-1", pauseId: "9f…", action: "revision_requested", feedback: "…" };
 */
export interface CardSubmitData {
  twi: "decision";
  conversationId: string;
  /**
   * The id of the pause (interrupt) the card was shown for: the decision applies to that pause only,
   * never to a later one. A card without it (sent before pause ids) is refused as out of date.
   */
  pauseId?: string;
  action: "approved" | "revision_requested" | "rejected" | "final_approved";
  feedback?: string;
}

/**
 * Reads card submit data, or `undefined` when the value is not this bot's.
 *
 * @example
 * readSubmitData(activity.value)?.action;
 */
export function readSubmitData(value: unknown): CardSubmitData | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const actions = ["approved", "revision_requested", "rejected", "final_approved"];
  if (v.twi !== "decision" || typeof v.conversationId !== "string" || !actions.includes(String(v.action))) {
    return undefined;
  }
  const data: CardSubmitData = {
    twi: "decision",
    conversationId: v.conversationId,
    action: v.action as CardSubmitData["action"],
  };
  if (typeof v.pauseId === "string") data.pauseId = v.pauseId;
  if (typeof v.feedback === "string") data.feedback = v.feedback;
  return data;
}

/**
 * The user's text without the bot's @mention (`<at>TWI bot</at> Írj…` → `Írj…`).
 *
 * @example
 * messageText({ type: "message", text: "<at>Bot</at> hello" } as TeamsActivity); // "hello"
 */
export function messageText(activity: TeamsActivity): string {
  return (activity.text ?? "").replace(/<at>[^<]*<\/at>/g, "").trim();
}

/**
 * The tenant an activity arrived in: `conversation.tenantId`, else `channelData.tenant.id`, else `""`;
 * `null` when the two name different tenants (such an activity is refused).
 *
 * @example
 * activityTenant({ conversation: { id: "a:1", tenantId: "t1" } } as TeamsActivity); // "t1"
 */
export function activityTenant(activity: TeamsActivity): string | null {
  const fromConversation = activity.conversation?.tenantId;
  const fromChannel = activity.channelData?.tenant?.id;
  if (fromConversation && fromChannel && fromConversation !== fromChannel) return null;
  return fromConversation || fromChannel || "";
}

/**
 * The start of every thread id of the Teams conversation (and tenant) an activity arrived in:
 * `msteams-<24 hex digits of SHA-256 of [tenant, conversation id]>-`. Threads are bound to the
 * conversation that started them: a card can only act on a thread with its own activity's prefix.
 * `undefined` without a conversation id or with two tenants.
 *
 * @example
 * teamsThreadPrefix({ conversation: { id: "a:1", tenantId: "t1" } } as TeamsActivity); // "msteams-…-"
 */
export function teamsThreadPrefix(activity: TeamsActivity): string | undefined {
  const tenant = activityTenant(activity);
  const conversation = activity.conversation?.id;
  if (tenant === null || !conversation) return undefined;
  const key = createHash("sha256")
    .update(JSON.stringify([tenant, conversation]))
    .digest("hex")
    .slice(0, 24);
  return `msteams-${key}-`;
}
