import { type AssistantMessage, assistantMessage, type ChatModel } from "@trellis/models";

/** Model turns since the last user message (how `createReactAgent` counts them against its cap). */
function turnsSinceUser(messages: readonly unknown[]): number {
  let turns = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const role = (messages[i] as { role?: unknown } | undefined)?.role;
    if (role === "user") break;
    if (role === "assistant") turns++;
  }
  return turns;
}

/**
 * The agent's model, made to end the turn itself — in Dutch, keeping the draft — one model turn before
 * `createReactAgent`'s cap of `maxIterations` would end it with its own (English) message: "Ik stop
 * hier: …". The cap message of `@trellis/agents` has no option for its text.
 *
 * @example
 * createReactAgent({ model: withDutchRoundCap(model, 40), maxIterations: 40, tools });
 */
export function withDutchRoundCap(model: ChatModel, maxIterations: number): ChatModel {
  const last = maxIterations - 1;
  const stop = (): AssistantMessage =>
    assistantMessage(
      `Ik stop hier: na ${last} stappen is er nog geen volledig antwoord. Wat al is vastgelegd blijft bewaard; ` +
        `vraag gerust later om verder te gaan (bijvoorbeeld "Maak het rapport af").`,
    );
  return {
    provider: model.provider,
    model: model.model,
    async invoke(messages, options) {
      if (turnsSinceUser(messages) < last) return model.invoke(messages, options);
      const message = stop();
      const listener = options?.onChunk;
      if (typeof listener === "function") {
        listener({ type: "text", messageId: message.id, text: message.content });
        listener({ type: "message", message });
      }
      return message;
    },
    async *stream(messages, options) {
      if (turnsSinceUser(messages) < last) {
        yield* model.stream(messages, options);
        return;
      }
      const message = stop();
      yield { type: "text", messageId: message.id, text: message.content };
      yield { type: "message", message };
    },
  };
}
