/**
 * Outgoing calls to the Telegram Bot API: `POST {apiBaseUrl}/bot{token}/{method}` with a JSON body.
 */
import type { TelegramConfig } from "../../config.js";
import type { InlineKeyboard } from "./telegram-types.js";

/** Telegram's limit on a message's text. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/**
 * Splits a long text into pieces under Telegram's limit, at paragraph or line ends where it can.
 *
 * @example
 * splitForTelegram("a".repeat(5000)).length; // 2
 */
export function splitForTelegram(text: string, limit = TELEGRAM_TEXT_LIMIT - 96): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    const cut = Math.max(window.lastIndexOf("\n\n"), window.lastIndexOf("\n"));
    const at = cut > limit / 2 ? cut : limit;
    parts.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest !== "" || parts.length === 0) parts.push(rest);
  return parts;
}

/**
 * The Bot API methods this bot uses.
 *
 * @example
 * const client = new TelegramClient(config.telegram);
 * await client.sendMessage(42, "Szia");
 */
export class TelegramClient {
  readonly #config: TelegramConfig;
  readonly #fetch: typeof fetch;

  constructor(config: TelegramConfig, fetchImpl: typeof fetch = fetch) {
    this.#config = config;
    this.#fetch = fetchImpl;
  }

  /** Calls a Bot API method and returns its `result`. */
  async call<T = unknown>(method: string, body: Record<string, unknown>): Promise<T> {
    if (!this.#config.botToken) throw new Error("TELEGRAM_BOT_TOKEN is not set: the bot cannot answer.");
    const url = `${this.#config.apiBaseUrl}/bot${this.#config.botToken}/${method}`;
    const response = await this.#fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const payload = (await response.json().catch(() => ({}))) as { ok?: boolean; result?: T; description?: string };
    if (!response.ok || payload.ok !== true) {
      throw new Error(`Telegram ${method} failed (${response.status}): ${payload.description ?? "no description"}`);
    }
    return payload.result as T;
  }

  /** Sends a text (split when long); the keyboard or reply markup goes on the last piece. */
  async sendMessage(
    chatId: number,
    text: string,
    markup?: InlineKeyboard | { force_reply: true; input_field_placeholder?: string },
  ): Promise<void> {
    const parts = splitForTelegram(text);
    for (const [i, part] of parts.entries()) {
      const last = i === parts.length - 1;
      await this.call("sendMessage", {
        chat_id: chatId,
        text: part,
        ...(last && markup ? { reply_markup: markup } : {}),
      });
    }
  }

  /** Stops the button's spinner, optionally with a short notice. */
  answerCallbackQuery(id: string, text?: string): Promise<unknown> {
    return this.call("answerCallbackQuery", { callback_query_id: id, ...(text ? { text } : {}) });
  }

  /** Removes the inline keyboard of a message whose question was answered. */
  clearKeyboard(chatId: number, messageId: number): Promise<unknown> {
    return this.call("editMessageReplyMarkup", {
      chat_id: chatId,
      message_id: messageId,
      reply_markup: { inline_keyboard: [] },
    });
  }
}
