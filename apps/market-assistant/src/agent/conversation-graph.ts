import { createToolNode } from "@trellis/agents";
import {
  type CompiledGraph,
  END,
  emitMessageChunk,
  isControlFlowSignal,
  type NodeContext,
  START,
  StateGraph,
} from "@trellis/core";
import {
  type AssistantMessage,
  assistantMessage,
  type ChatModel,
  hasToolCalls,
  type Message,
  messageText,
  systemMessage,
  type Tool,
  userMessage,
} from "@trellis/models";
import type { Logger } from "../logger.js";
import { buildTranscript, type TranscriptLimits } from "../transcript/transcript-format.js";
import { type AgentState, agentStateSchema, REFERENCE_MESSAGE, systemPrompt } from "./agent-state.js";

/** Options of {@link buildConversationGraph}. */
export interface ConversationGraphOptions {
  model: ChatModel;
  /** The agent's tools: `query_graph_database` in the app. */
  tools: readonly Tool[];
  logger?: Logger;
  /** The graph's name. Default `market_assistant`. */
  name?: string;
  /** Truncation of the transcript built from `messages` when a run brings no `conversation_transcript`. */
  transcriptLimits?: TranscriptLimits;
}

/**
 * The seed's graph: `main_agent` asks the model, with the transcript in the system prompt and the
 * current execution's messages after it; `tools` runs the tool calls; `should_continue` loops back
 * until the model answers without tool calls. When `max_iterations` model turns have passed and the
 * model still wants tools, `partial_answer` ends the run with what was found so far, saying so.
 *
 * ```
 * START → main_agent ─should_continue─→ tools → main_agent
 *                    ├────────────────→ partial_answer → END   (iteration cap)
 *                    └────────────────→ END                    (final answer)
 * ```
 *
 * A failed model call does not fail the run: `main_agent` answers with an apology carrying the error
 * and sets `outcome: "llm_error"`.
 *
 * @example
 * const graph = buildConversationGraph({ model, tools: [queryTool] });
 * await graph.invoke({ messages: [userMessage(REFERENCE_MESSAGE)], conversation_transcript: "Human: hi" });
 */
export function buildConversationGraph(options: ConversationGraphOptions): CompiledGraph<typeof agentStateSchema> {
  const { model, tools, logger } = options;
  const mainAgent = async (state: AgentState, ctx: NodeContext) => {
    const iteration = turnsSinceUser(state.messages) + 1;
    const transcript = transcriptOf(state, options.transcriptLimits);
    const input: Message[] = [systemMessage(systemPrompt(transcript)), ...currentExecution(state.messages)];
    try {
      const reply = await ctx.step("model", () =>
        model.invoke(input, {
          ...(tools.length > 0 ? { tools: [...tools] } : {}),
          signal: ctx.signal,
          onChunk: (delta) => emitMessageChunk(delta),
        }),
      );
      return { messages: [freshIds(reply, state.messages)], iteration_count: iteration, outcome: "answered" as const };
    } catch (error) {
      if (isControlFlowSignal(error) || ctx.signal.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      logger?.error(`The model (${model.provider}/${model.model}) failed: ${reason}`);
      return {
        messages: [
          assistantMessage(`I'm sorry, I couldn't generate a response because the language model failed: ${reason}`),
        ],
        iteration_count: iteration,
        outcome: "llm_error" as const,
      };
    }
  };
  return (
    new StateGraph(agentStateSchema, {
      name: options.name ?? "market_assistant",
      // the seed's initial state; `outcome` is the graph's own answer
      input: ["messages", "conversation_transcript", "iteration_count", "max_iterations"],
    })
      .addNode("main_agent", mainAgent)
      .addNode("tools", createToolNode(tools))
      .addNode("partial_answer", (state: AgentState) => ({
        messages: [partialAnswer(state)],
        outcome: "partial" as const,
      }))
      .addEdge(START, "main_agent")
      .addConditionalEdges("main_agent", shouldContinue, {
        tools: "tools",
        partial_answer: "partial_answer",
        [END]: END,
      })
      .addEdge("tools", "main_agent")
      .addEdge("partial_answer", END)
      // It never calls interrupt(), so a thread of it never waits for an answer and the policy never
      // applies; LangGraph's default is declared so that it is a choice, not an accident.
      .compile({ onInputWhilePaused: "restart" })
  );
}

/**
 * The seed's `should_continue`: to `tools` while the last message has tool calls, to `partial_answer`
 * when it has them but `max_iterations` model turns are spent, else END.
 *
 * @example
 * shouldContinue({ messages: [assistantMessage("done")], iteration_count: 1, max_iterations: 10 }); // END
 */
export function shouldContinue(
  state: Pick<AgentState, "messages" | "iteration_count" | "max_iterations">,
): "tools" | "partial_answer" | typeof END {
  const last = state.messages[state.messages.length - 1];
  if (!last || !hasToolCalls(last)) return END;
  return state.iteration_count >= state.max_iterations ? "partial_answer" : "tools";
}

/**
 * The transcript the run brought — or, when it brought only messages (a client of the Agent Server API,
 * the app's `/chat` served by the Trellis server), one built from the thread's messages: its user
 * messages and final answers, then the latest user message, truncated like the transcripts loaded
 * from the store. A transcript in the state is the run's own when the run started with the reference
 * message (the seed's shape) or when it ends with the latest user message; otherwise it is an earlier
 * run's, and a thread's next question must not be answered from it.
 */
function transcriptOf(state: AgentState, limits: TranscriptLimits | undefined): string {
  const start = lastUserIndex(state.messages);
  // a chat UI's question may come as content blocks (text and images): its text is the question
  const message = state.messages[start];
  const question = message ? messageText(message) : undefined;
  const given = state.conversation_transcript;
  if (given && (question === undefined || question === REFERENCE_MESSAGE || given.endsWith(`Human: ${question}`))) {
    return given;
  }
  const history = state.messages
    .slice(0, Math.max(start, 0))
    .filter((m) => m.role === "user" || (m.role === "assistant" && !hasToolCalls(m) && m.content.trim() !== ""))
    .map((m) => ({ role: m.role, content: messageText(m) }))
    .filter((m) => m.content !== REFERENCE_MESSAGE);
  return buildTranscript(history, question ?? "", limits);
}

/**
 * What the model sees after the system prompt: the reference message and this execution's tool calls
 * and results. A latest user message is replaced by the reference message, as it is in the transcript.
 */
function currentExecution(messages: readonly Message[]): Message[] {
  const start = lastUserIndex(messages);
  const user = messages[start];
  const reference = user && user.content === REFERENCE_MESSAGE ? user : userMessage(REFERENCE_MESSAGE);
  return [reference, ...messages.slice(start + 1)];
}

/**
 * The reply, with new ids if the thread already holds its id or one of its tool calls' ids. A model may
 * derive ids from what it was shown (the offline model does), and a thread can show it the same thing
 * twice — the same question with the same truncated history; the `messages` channel would then replace
 * the earlier turn's messages instead of appending this turn's.
 */
function freshIds(reply: AssistantMessage, messages: readonly Message[]): AssistantMessage {
  const taken = new Set<string>();
  for (const m of messages) {
    if (m.id) taken.add(m.id);
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) taken.add(c.id);
  }
  const calls = reply.toolCalls ?? [];
  if (!taken.has(reply.id) && !calls.some((c) => taken.has(c.id))) return reply;
  const suffix = `-${messages.length}`;
  return {
    ...reply,
    id: `${reply.id}${suffix}`,
    ...(calls.length > 0 ? { toolCalls: calls.map((c) => ({ ...c, id: `${c.id}${suffix}` })) } : {}),
  };
}

function lastUserIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === "user") return i;
  return -1;
}

function turnsSinceUser(messages: readonly Message[]): number {
  return messages.slice(lastUserIndex(messages) + 1).filter((m) => m.role === "assistant").length;
}

/** Most characters of tool results a partial answer quotes, shared among the results. */
const PARTIAL_ANSWER_BUDGET = 12_000;

/**
 * The answer when the iteration cap is hit: says so, and gives every tool result gathered so far, each
 * under the query that produced it (shortened to share {@link PARTIAL_ANSWER_BUDGET} characters), then
 * the queries never run. A closing note in parentheses that every result repeats (the sample-data
 * notice) is said once, at the end.
 */
function partialAnswer(state: AgentState): AssistantMessage {
  const current = state.messages.slice(lastUserIndex(state.messages) + 1);
  const calls = current.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []));
  const queryOf = (id: string) => {
    const args = calls.find((c) => c.id === id)?.args as { query?: unknown } | undefined;
    return typeof args?.query === "string" ? args.query : undefined;
  };
  const tools = current.filter((m) => m.role === "tool" && m.content.trim() !== "");
  const answered = new Set(current.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  const notes = new Set<string>();
  const bodies = tools.map((m) => {
    const paragraphs = messageText(m).trim().split(/\n\n/);
    const last = paragraphs.at(-1) ?? "";
    if (paragraphs.length > 1 && /^\(.*\)$/s.test(last)) {
      notes.add(last);
      paragraphs.pop();
    }
    return paragraphs.join("\n\n");
  });
  const head =
    `I reached the limit of ${state.max_iterations} reasoning steps before finishing, so this answer is partial` +
    " and may be incomplete.";
  if (tools.length === 0)
    return assistantMessage(`${head} I had not retrieved any data yet; please ask a narrower question.`);
  const each = Math.max(300, Math.floor(PARTIAL_ANSWER_BUDGET / tools.length));
  const shown = tools.map((m, i) => {
    const body = bodies[i] ?? "";
    const text = body.length > each ? `${body.slice(0, each)}… (cut short)` : body;
    const query = m.role === "tool" ? queryOf(m.toolCallId) : undefined;
    return `${i + 1}. ${query === undefined ? "" : `"${query}":\n`}${text}`;
  });
  const unrun = calls
    .filter((c) => !answered.has(c.id))
    .map((c) => (c.args as { query?: unknown }).query)
    .filter((q): q is string => typeof q === "string")
    .map((q) => `"${q}"`);
  const parts = [`${head} Here is what I found so far (${tools.length} results):`, ...shown];
  if (unrun.length > 0) parts.push(`Not looked up before the limit: ${unrun.join(", ")}.`);
  parts.push(...notes);
  return assistantMessage(parts.join("\n\n"));
}
