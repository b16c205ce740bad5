/**
 * Cosmetic outgoing calls — the typing indicator, answering a button press, removing a keyboard — must
 * never cost the user their message: when one fails, the failure is logged and the work goes on.
 */

/**
 * Runs a cosmetic call; a failure is logged, not thrown.
 *
 * @example
 * await bestEffort("typing indicator", () => client.call("sendChatAction", { chat_id, action: "typing" }));
 */
export async function bestEffort(what: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    console.warn(`[twi-author] ${what} failed (the message is handled anyway): ${(error as Error)?.message ?? error}`);
  }
}
