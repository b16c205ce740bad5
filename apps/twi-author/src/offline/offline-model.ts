import { type Message, messageText, RuleChatModel } from "@trellis/models";
import { GENERATE_PROMPT_ID, INTENT_PROMPT_ID, readGeneratePrompt } from "../prompts.js";
import { classifyOffline } from "./offline-intent.js";
import { writeOffline } from "./offline-writer.js";

/**
 * The model id the offline model reports (it lands in `llm_model` and `draft_metadata.model`).
 *
 * @example
 * state.llm_model === OFFLINE_MODEL_ID; // when no provider is configured
 */
export const OFFLINE_MODEL_ID = "twi-offline-rules-1";

/**
 * The deterministic model the app runs on without a provider: a `RuleChatModel` with two rules, one
 * per call of the seed. The intent call is recognised by its system prompt and answered by keyword
 * rules; the generate call is answered by the offline writer from the prompt's blocks (request,
 * previous draft, feedback). It reads the same prompt a real model reads, so the graph cannot tell
 * them apart.
 *
 * @example
 * const model = createOfflineTwiModel();
 * const reply = await model.invoke(intentMessages("Írj TWI-t a raklap fóliázásáról"), INTENT_CALL);
 * reply.content; // "generate_twi"
 */
export function createOfflineTwiModel(): RuleChatModel {
  const systemStartsWith = (id: string) => (ctx: { messages: readonly Message[] }) =>
    ctx.messages.some((m) => m.role === "system" && m.content.startsWith(id));
  return new RuleChatModel({
    model: OFFLINE_MODEL_ID,
    rules: [
      {
        name: "intent",
        when: systemStartsWith(INTENT_PROMPT_ID),
        // a chat UI's request may come as content blocks: the model reads their text
        reply: (ctx) => classifyOffline(messageText(ctx.lastUser)),
      },
      {
        name: "generate",
        when: systemStartsWith(GENERATE_PROMPT_ID),
        reply: (ctx) => writeOffline(readGeneratePrompt(messageText(ctx.lastUser))),
      },
    ],
    fallback: "unknown",
  });
}
