import { END, emitMessageChunk, type NodeContext } from "@trellis/core";
import {
  type AssistantMessage,
  assistantMessage,
  type ChatModel,
  type Message,
  messageText,
  systemMessage,
  type Tool,
} from "@trellis/models";
import type { DifficultyLevel, SubjectState } from "../state.js";
import { classifyDifficultyDetailed } from "./difficulty.js";
import { getAdaptivePrompt, SYSTEM_PROMPT_COT } from "./prompts.js";

/**
 * Tool rounds allowed after a user message before the model must answer without tools.
 *
 * @example
 * const toolsAllowed = rounds < MAX_TOOL_ROUNDS;
 */
export const MAX_TOOL_ROUNDS = 4;

/**
 * The `<thinking>` and `<answer>` parts of a chain-of-thought reply; either is undefined when absent.
 *
 * @example
 * parseCotResponse("<thinking>a</thinking><answer>b</answer>"); // { thinking: "a", answer: "b" }
 */
export function parseCotResponse(content: string): { thinking: string | undefined; answer: string | undefined } {
  const thinking = /<thinking>([\s\S]*?)<\/thinking>/.exec(content)?.[1]?.trim();
  const answer = /<answer>([\s\S]*?)<\/answer>/.exec(content)?.[1]?.trim();
  return { thinking, answer };
}

/**
 * Options of {@link createThinkNode}.
 *
 * @example
 * const options: ThinkNodeOptions = { model: createOfflineTutorModel(), tools: tools.all, temperature: 0.1 };
 */
export interface ThinkNodeOptions {
  model: ChatModel;
  tools: readonly Tool[];
  temperature?: number;
}

/**
 * The seed's `think` node: classifies the last user message (basic, intermediate, advanced), picks the
 * adaptive system prompt (chain-of-thought for advanced questions), calls the model with the tools
 * bound — as a durable step, so a resumed or retried run does not pay twice — and for advanced
 * questions keeps `<thinking>` in `thinking` and only the `<answer>` in the conversation.
 *
 * @example
 * builder.addNode("agent", createThinkNode({ model, tools: tools.all }));
 */
export function createThinkNode(options: ThinkNodeOptions) {
  const definitions = options.tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.parameters,
  }));
  return async (state: SubjectState, ctx: NodeContext) => {
    const lastUser = lastUserText(state.messages);
    const level: DifficultyLevel = classifyDifficultyDetailed(lastUser).level;
    const useCot = level === "advanced";
    const prompt = useCot ? SYSTEM_PROMPT_COT(state.asignatura) : getAdaptivePrompt(level, state.asignatura);
    const toolsAllowed = toolRoundsSinceUser(state.messages) < MAX_TOOL_ROUNDS;
    const reply = await ctx.step("llm", (signal) =>
      options.model.invoke([systemMessage(prompt), ...state.messages], {
        ...(toolsAllowed ? { tools: definitions } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        signal,
        onChunk: (delta) => emitMessageChunk(delta),
      }),
    );
    const update: { messages: AssistantMessage[]; query_difficulty: DifficultyLevel; thinking: string | null } = {
      messages: [reply],
      query_difficulty: level,
      thinking: null,
    };
    if (useCot && !(reply.toolCalls?.length ?? 0)) {
      const parsed = parseCotResponse(reply.content);
      if (parsed.thinking !== undefined) update.thinking = parsed.thinking;
      if (parsed.answer !== undefined) update.messages = [assistantMessage(parsed.answer, { id: reply.id })];
    }
    return update;
  };
}

/** Maps the seed's tool names to the graph's nodes (`generate_test` → `test_session`). */
const ROUTES = new Set(["rag_search", "get_guia", "generate_test"]);

/**
 * The seed's `should_continue`: the name of the first tool call of the last message, or END. A tool
 * name the graph does not know goes to `rag_search`, whose node answers it with an error message the
 * model can read (the seed would fail on it).
 *
 * @example
 * builder.addConditionalEdges("agent", shouldContinue, { rag_search: "rag_search", get_guia: "get_guia", generate_test: "test_session", [END]: END });
 */
export function shouldContinue(state: SubjectState): string {
  const last = state.messages.at(-1);
  const first = last?.role === "assistant" ? last.toolCalls?.[0] : undefined;
  if (!first) return END;
  return ROUTES.has(first.name) ? first.name : "rag_search";
}

function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "user") return messageText(m);
  }
  return "";
}

function toolRoundsSinceUser(messages: readonly Message[]): number {
  let rounds = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "user") break;
    if (m?.role === "assistant" && (m.toolCalls?.length ?? 0) > 0) rounds++;
  }
  return rounds;
}
