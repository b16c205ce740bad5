/**
 * The parts of Telegram Bot API updates this bot reads.
 *
 * @example
 * const update: TelegramUpdate = { update_id: 1, message: { message_id: 5, chat: { id: 42 }, from: { id: 7 }, text: "Írj TWI-t…" } };
 */
export interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
  callback_query?: TelegramCallbackQuery;
}

/**
 * A message.
 *
 * @example
 * const m: TelegramMessage = { message_id: 5, chat: { id: 42 }, text: "hi" };
 */
export interface TelegramMessage {
  message_id: number;
  chat: { id: number; type?: string };
  from?: { id: number; first_name?: string; username?: string };
  date?: number;
  text?: string;
  reply_to_message?: TelegramMessage;
}

/**
 * A press on an inline keyboard button.
 *
 * @example
 * const q: TelegramCallbackQuery = { id: "9", from: { id: 7 }, data: "twi:a:telegram-42-5" };
 */
export interface TelegramCallbackQuery {
  id: string;
  from: { id: number; first_name?: string };
  message?: TelegramMessage;
  data?: string;
}

/**
 * An inline keyboard: rows of buttons whose `callback_data` (at most 64 bytes) comes back in a callback query.
 *
 * @example
 * const kb: InlineKeyboard = { inline_keyboard: [[{ text: "OK", callback_data: "twi:a:c1" }]] };
 */
export interface InlineKeyboard {
  inline_keyboard: Array<Array<{ text: string; callback_data: string }>>;
}
