import {
  type FilePart as AiFilePart,
  type ImagePart as AiImagePart,
  type TextPart as AiTextPart,
  type ToolChoice as AiToolChoice,
  type JSONSchema7,
  jsonSchema,
  type ModelMessage,
  type ToolSet,
} from "ai";
import type { ToolChoice, ToolDefinition } from "./chat-model.js";
import type { ContentPart } from "./content-parts.js";
import type { Message } from "./messages.js";

/**
 * Converts Trellis messages to the AI SDK's `ModelMessage`s. A tool message without a `name` takes the
 * tool name from the assistant call it answers.
 *
 * @example
 * toModelMessages([userMessage("Hi")]); // [{ role: "user", content: "Hi" }]
 */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const toolNames = new Map<string, string>();
  return messages.map((message) => toModelMessage(message, toolNames));
}

function toModelMessage(message: Message, toolNames: Map<string, string>): ModelMessage {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return {
        role: "user",
        content: typeof message.content === "string" ? message.content : message.content.map(toAiPart),
      };
    case "assistant": {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: "assistant", content: message.content };
      for (const call of calls) toolNames.set(call.id, call.name);
      return {
        role: "assistant",
        content: [
          ...(message.content === "" ? [] : [{ type: "text" as const, text: message.content }]),
          ...calls.map((call) => ({
            type: "tool-call" as const,
            toolCallId: call.id,
            toolName: call.name,
            input: call.args,
          })),
        ],
      };
    }
    case "tool":
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: message.toolCallId,
            toolName: message.name ?? toolNames.get(message.toolCallId) ?? "tool",
            output: { type: message.status === "error" ? "error-text" : "text", value: message.content },
          },
        ],
      };
  }
}

/**
 * A user message's part as the AI SDK takes it: text as `TextPart`, an image as `ImagePart` (base64 data
 * with its media type, or a `URL`), a file as `FilePart`. The provider then sends it in its own shape
 * (OpenAI: `image_url`, `file` with `file_data`).
 */
function toAiPart(part: ContentPart): AiTextPart | AiImagePart | AiFilePart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return part.data !== undefined
        ? { type: "image", image: part.data, ...(part.mimeType ? { mediaType: part.mimeType } : {}) }
        : { type: "image", image: new URL(part.url as string), ...(part.mimeType ? { mediaType: part.mimeType } : {}) };
    case "file":
      return {
        type: "file",
        data: part.data !== undefined ? part.data : new URL(part.url as string),
        mediaType: part.mimeType,
        ...(part.filename !== undefined ? { filename: part.filename } : {}),
      };
  }
}

/**
 * Converts tool definitions to an AI SDK tool set without `execute`, so the model's tool calls come
 * back to the caller instead of running inside the SDK.
 *
 * @example
 * toToolSet([{ name: "search", description: "Search", parameters: { type: "object", properties: {} } }]);
 */
export function toToolSet(tools: readonly ToolDefinition[]): ToolSet {
  const set: ToolSet = {};
  for (const tool of tools) {
    set[tool.name] = { description: tool.description, inputSchema: jsonSchema(tool.parameters as JSONSchema7) };
  }
  return set;
}

/**
 * Converts a Trellis tool choice to the AI SDK's.
 *
 * @example
 * toAiToolChoice({ name: "search" }); // { type: "tool", toolName: "search" }
 */
export function toAiToolChoice(choice: ToolChoice): AiToolChoice<ToolSet> {
  return typeof choice === "string" ? choice : { type: "tool", toolName: choice.name };
}
