import { END } from "@trellis/core";
import type { AssistantMessage, Message } from "@trellis/models";

/**
 * A router: `"tools"` when the last message is an assistant message with tool calls, else END.
 *
 * @example
 * builder.addConditionalEdges("agent", toolsCondition, ["tools", END]);
 */
export function toolsCondition(
  state: { messages?: readonly Message[] } | Record<string, unknown>,
): "tools" | typeof END {
  const messages = ((state as { messages?: readonly Message[] }).messages ?? []) as readonly Message[];
  const last = messages[messages.length - 1];
  return last?.role === "assistant" && ((last as AssistantMessage).toolCalls?.length ?? 0) > 0 ? "tools" : END;
}
