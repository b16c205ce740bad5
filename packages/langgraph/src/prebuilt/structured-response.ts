import { type BaseMessage, SystemMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import type { LangGraphRunnableConfig } from "../config.js";

/**
 * What `responseFormat` of `createReactAgent` may be: a schema (zod or JSON schema), or a schema with
 * a system prompt for the structured call and options for LangChain's `withStructuredOutput`.
 *
 * @example
 * const format: ResponseFormat = { schema: z.object({ city: z.string() }), prompt: "Answer as JSON.", name: "City" };
 */
export type ResponseFormat = unknown;

interface StructuredModel {
  withStructuredOutput(schema: unknown, options?: Record<string, unknown>): Runnable;
}

function canStructure(value: unknown): value is StructuredModel {
  return typeof (value as Partial<StructuredModel> | null)?.withStructuredOutput === "function";
}

/**
 * The chat model itself under what wraps it (a `bindTools`/`withConfig` binding, a sequence, a model
 * chosen at run time by `initChatModel`), since structured output is asked of the model.
 */
async function modelOf(llm: unknown): Promise<StructuredModel> {
  let model = llm as { steps?: unknown[]; bound?: unknown; _model?: () => Promise<unknown> } | null;
  if (Array.isArray(model?.steps)) {
    model = (model.steps.find((s) => canStructure(s) || (s as { bound?: unknown }).bound !== undefined) ??
      model) as typeof model;
  }
  for (let depth = 0; model && !canStructure(model) && depth < 8; depth++) {
    if (model.bound !== undefined) model = model.bound as typeof model;
    else if (typeof model._model === "function") model = (await model._model()) as typeof model;
    else break;
  }
  if (!canStructure(model)) {
    const name = (model as { constructor?: { name?: string } } | null)?.constructor?.name ?? typeof model;
    throw new Error(`responseFormat needs a chat model with withStructuredOutput(); the agent's llm is a ${name}.`);
  }
  return model;
}

/**
 * The node that, after the tool loop, asks the model once more for its answer in `responseFormat`
 * (prepending `prompt` when the format gives one) and stores it as `structuredResponse`. @internal
 */
export function structuredResponseNode(
  llm: unknown,
  responseFormat: ResponseFormat,
): (state: { messages: BaseMessage[] }, config: LangGraphRunnableConfig) => Promise<{ structuredResponse: unknown }> {
  return async (state, config) => {
    const model = await modelOf(llm);
    const messages = [...state.messages];
    let structured: Runnable;
    if (typeof responseFormat === "object" && responseFormat !== null && "schema" in responseFormat) {
      const { schema, prompt, ...options } = responseFormat as { schema: unknown; prompt?: string | null };
      structured = model.withStructuredOutput(schema, options);
      if (prompt != null) messages.unshift(new SystemMessage({ content: prompt }));
    } else structured = model.withStructuredOutput(responseFormat);
    const answer = await structured.invoke(messages, config);
    if (answer == null) {
      throw new Error(
        "The structured-output parser returned nothing: the model's answer did not fit responseFormat's schema. Check the schema, or give a prompt with { schema, prompt }.",
      );
    }
    return { structuredResponse: answer };
  };
}
