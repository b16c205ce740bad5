import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";

/** What the scripted model answers: text, tool calls, or both. */
export interface ScriptedReply {
  content?: string;
  tool_calls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
}

/** A reply, or a function of the conversation that picks one. */
export type Script = ReadonlyArray<ScriptedReply> | ((messages: BaseMessage[], turn: number) => ScriptedReply);

/**
 * An offline LangChain chat model for tests: answers from a script, streams its text word by word,
 * and names its replies `reply-1`, `reply-2`… so two runs of one program can be compared. Bound by
 * `withStructuredOutput`, it answers as LangChain's structured output reads it (a tool call in a chunk).
 *
 * @example
 * const model = new ScriptedChatModel([{ tool_calls: [{ id: "c1", name: "add", args: { a: 1, b: 2 } }] }, { content: "3" }]);
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly #script: Script;
  #turn = 0;
  boundTools: unknown[] = [];

  constructor(script: Script, params: BaseChatModelParams = {}) {
    super(params);
    this.#script = script;
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(tools: unknown[]): this {
    const bound = new ScriptedChatModel(this.#script) as this;
    (bound as ScriptedChatModel).boundTools = tools;
    (bound as ScriptedChatModel).#share(this);
    return bound;
  }

  #source: ScriptedChatModel | undefined;
  #share(source: ScriptedChatModel): void {
    this.#source = source;
  }

  #next(messages: BaseMessage[]): { reply: ScriptedReply; id: string } {
    const owner = this.#source ?? this;
    const turn = owner.#turn++;
    const script = owner.#script;
    const reply =
      typeof script === "function" ? script(messages, turn) : (script[turn] ?? { content: "(script ended)" });
    return { reply, id: `reply-${turn + 1}` };
  }

  /**
   * Whether this model was bound by LangChain's `withStructuredOutput`, which binds the schema as one
   * OpenAI-format function tool and reads its answer as an `AIMessageChunk`'s tool call.
   */
  #structured(): boolean {
    return (
      this.boundTools.length === 1 &&
      (this.boundTools[0] as { type?: unknown; function?: unknown }).type === "function" &&
      typeof (this.boundTools[0] as { function?: unknown }).function === "object"
    );
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const { reply, id } = this.#next(messages);
    const fields = { id, content: reply.content ?? "", tool_calls: reply.tool_calls ?? [] };
    // as a provider does, the structured answer comes back as a chunk (LangChain's parser requires one)
    const message = this.#structured() ? new AIMessageChunk(fields) : new AIMessage(fields);
    return { generations: [{ text: String(message.content), message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { reply, id } = this.#next(messages);
    const words = (reply.content ?? "").split(/(?<= )/).filter((w) => w !== "");
    for (const word of words) {
      const chunk = new ChatGenerationChunk({ text: word, message: new AIMessageChunk({ id, content: word }) });
      yield chunk;
      await runManager?.handleLLMNewToken(word, undefined, undefined, undefined, undefined, { chunk });
    }
    if (reply.tool_calls?.length) {
      const tool_call_chunks = reply.tool_calls.map((c, index) => ({
        id: c.id,
        name: c.name,
        args: JSON.stringify(c.args),
        index,
        type: "tool_call_chunk" as const,
      }));
      const chunk = new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({ id, content: "", tool_call_chunks }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken("", undefined, undefined, undefined, undefined, { chunk });
    }
  }
}
