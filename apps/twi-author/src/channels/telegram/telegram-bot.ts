/**
 * The Telegram side of the seed: a message starts a conversation and gets the draft with an inline
 * keyboard; a button press (`callback_query`) resumes the graph. "Request revision" asks for the
 * feedback as a reply to a prompt that names the conversation, so no session state is kept here.
 */
import { DecisionError, type ReviewDecision } from "../../decisions.js";
import { type ConversationView, pauseTag, type TwiAssistant } from "../../twi-assistant.js";
import { bestEffort } from "../best-effort.js";
import { decisionErrorText, TEXT, viewText } from "../view-text.js";
import type { TelegramClient } from "./telegram-client.js";
import type { InlineKeyboard, TelegramCallbackQuery, TelegramMessage, TelegramUpdate } from "./telegram-types.js";

/**
 * Callback data: `twi:<a|r|x|f>:<pause tag>:<conversation id>` — approve, revise, reject, final
 * approve; the pause tag (the first characters of the interrupt id the keyboard was shown for) makes
 * a press apply to that pause only, never to a later one.
 */
const CALLBACK = /^twi:([arxf]):([0-9a-f]{12}):(.{1,45})$/;
/** The tag in the feedback prompt that ties the user's reply to its conversation and pause. */
const TAG = /\[#twi:([0-9a-f]{12}):([A-Za-z0-9_.:-]{1,80})\]/;

/**
 * The thread id of a conversation started by a Telegram message: `telegram-<chat>-<message>`.
 *
 * @example
 * telegramConversationId({ message_id: 5, chat: { id: 42 } }); // "telegram-42-5"
 */
export function telegramConversationId(message: TelegramMessage): string {
  return `telegram-${message.chat.id}-${message.message_id}`;
}

/**
 * The thread a Telegram update acts on, for the log: the conversation a pressed button or a reply to a
 * feedback prompt names (when it is the chat's own), else the one a message starts; undefined for a
 * command, an empty message or anything else.
 *
 * @example
 * telegramThreadOf({ update_id: 1, message: { message_id: 5, chat: { id: 42 }, text: "hi" } }); // "telegram-42-5"
 */
export function telegramThreadOf(update: TelegramUpdate): string | undefined {
  const own = (chatId: number | undefined, id: string | undefined) =>
    chatId !== undefined && id?.startsWith(`telegram-${chatId}-`) ? id : undefined;
  const query = update.callback_query;
  if (query) return own(query.message?.chat.id, CALLBACK.exec(query.data ?? "")?.[3]);
  const message = update.message;
  const text = message?.text?.trim();
  if (!message || !text) return undefined;
  const tagged = TAG.exec(message.reply_to_message?.text ?? "");
  if (tagged) return own(message.chat.id, tagged[2]);
  return /^\/(start|help)\b/.test(text) ? undefined : telegramConversationId(message);
}

/**
 * The keyboard of a view: three buttons at review, one at final approval, none otherwise.
 *
 * @example
 * keyboardFor(view)?.inline_keyboard[0]?.map((b) => b.callback_data); // ["twi:a:<tag>:…", "twi:r:<tag>:…", "twi:x:<tag>:…"]
 */
export function keyboardFor(view: ConversationView): InlineKeyboard | undefined {
  const id = view.conversationId;
  if (view.kind !== "review" && view.kind !== "final_approval") return undefined;
  const tag = pauseTag(view.pauseId);
  if (view.kind === "review") {
    return {
      inline_keyboard: [
        [
          // a draft that is not an instruction (questions, an answer) cannot be approved
          ...(view.isInstruction ? [{ text: `✅ ${TEXT.approve}`, callback_data: `twi:a:${tag}:${id}` }] : []),
          { text: `✏️ ${TEXT.requestRevision}`, callback_data: `twi:r:${tag}:${id}` },
          { text: `❌ ${TEXT.reject}`, callback_data: `twi:x:${tag}:${id}` },
        ],
      ],
    };
  }
  return { inline_keyboard: [[{ text: `✅ ${TEXT.finalApprove}`, callback_data: `twi:f:${tag}:${id}` }]] };
}

/**
 * Handles one webhook update.
 *
 * @example
 * const bot = new TelegramBot(assistant, new TelegramClient(config.telegram), "telegram");
 * await bot.handle(update);
 */
export class TelegramBot {
  readonly #assistant: TwiAssistant;
  readonly #client: TelegramClient;
  readonly #tenantId: string;

  constructor(assistant: TwiAssistant, client: TelegramClient, tenantId: string) {
    this.#assistant = assistant;
    this.#client = client;
    this.#tenantId = tenantId;
  }

  async handle(update: TelegramUpdate): Promise<void> {
    if (update.callback_query) return this.#onCallback(update.callback_query);
    if (update.message?.text) return this.#onMessage(update.message);
  }

  async #show(chatId: number, view: ConversationView): Promise<void> {
    await this.#client.sendMessage(chatId, viewText(view), keyboardFor(view));
  }

  async #onMessage(message: TelegramMessage): Promise<void> {
    const chatId = message.chat.id;
    const text = (message.text ?? "").trim();
    const tagged = TAG.exec(message.reply_to_message?.text ?? "");
    if (tagged) {
      const [, tag, conversationId] = tagged as unknown as [string, string, string];
      return this.#decide(chatId, conversationId, { action: "revision_requested", feedback: text }, tag);
    }
    if (/^\/(start|help)\b/.test(text)) return this.#client.sendMessage(chatId, TEXT.help);
    // cosmetic: a failing typing indicator must not drop the message
    await bestEffort("Telegram sendChatAction", () =>
      this.#client.call("sendChatAction", { chat_id: chatId, action: "typing" }),
    );
    let view: ConversationView;
    try {
      view = await this.#assistant.start({
        conversation_id: telegramConversationId(message),
        user_id: String(message.from?.id ?? chatId),
        tenant_id: this.#tenantId,
        channel: "telegram",
        message: text,
      });
    } catch (error) {
      await this.#client.sendMessage(chatId, TEXT.failed);
      throw error;
    }
    await this.#show(chatId, view);
  }

  async #onCallback(query: TelegramCallbackQuery): Promise<void> {
    const match = CALLBACK.exec(query.data ?? "");
    const chatId = query.message?.chat.id;
    if (!match || chatId === undefined) {
      await bestEffort("Telegram answerCallbackQuery", () => this.#client.answerCallbackQuery(query.id));
      return;
    }
    const [, code, tag, conversationId] = match as unknown as [string, string, string, string];
    await bestEffort("Telegram answerCallbackQuery", () => this.#client.answerCallbackQuery(query.id));
    if (code === "r") {
      // Telegram buttons carry no text field: ask for the feedback as a reply to a tagged prompt.
      await this.#client.sendMessage(chatId, `${TEXT.feedbackPrompt} [#twi:${tag}:${conversationId}]`, {
        force_reply: true,
        input_field_placeholder: TEXT.feedbackPlaceholder.slice(0, 64),
      });
      return;
    }
    const pressed = query.message;
    if (pressed)
      await bestEffort("Telegram editMessageReplyMarkup", () => this.#client.clearKeyboard(chatId, pressed.message_id));
    const decision: ReviewDecision =
      code === "a" ? { action: "approved" } : code === "f" ? { action: "final_approved" } : { action: "rejected" };
    await this.#decide(chatId, conversationId, decision, tag);
  }

  async #decide(chatId: number, conversationId: string, decision: ReviewDecision, tag: string): Promise<void> {
    // A chat may only decide on its own conversations, whatever ids a user types or replies to.
    if (!conversationId.startsWith(`telegram-${chatId}-`)) {
      await this.#client.sendMessage(chatId, decisionErrorText(new DecisionError("foreign", "UNKNOWN_CONVERSATION")));
      return;
    }
    let view: ConversationView;
    try {
      view = await this.#assistant.decide(conversationId, decision, { pause: tag });
    } catch (error) {
      const text = decisionErrorText(error);
      await this.#client.sendMessage(chatId, text);
      if (text === TEXT.failed) throw error;
      return;
    }
    await this.#show(chatId, view);
  }
}
