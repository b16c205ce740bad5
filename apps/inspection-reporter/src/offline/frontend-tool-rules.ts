import type { Rule, RuleContext, ToolDefinition } from "@trellis/models";
import { callOf, lastToolResult } from "./conversation-reading.js";

/** The general agent's own tools: the handoffs and `update_user_settings`. */
const OWN_TOOL = /^(transfer_to_|update_user_settings$)/;

/** A message's text: a string, or the text of its text parts. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => ((p as { type?: unknown }).type === "text" ? String((p as { text?: unknown }).text ?? "") : ""))
    .join("");
}

/** How a tool's name reads in a sentence: `huidige_locatie` → "huidige locatie". */
const spoken = (name: string) => name.replace(/[_-]+/g, " ").toLowerCase();

/**
 * The frontend tool (offered to the model, not one of the general agent's own) that the inspector's
 * message names — by its name, or its name with spaces for `_` and `-` ("huidige locatie" names
 * `huidige_locatie`).
 *
 * @example
 * namedFrontendTool("Wat is mijn huidige locatie?", [{ name: "huidige_locatie", … }]); // the tool
 */
export function namedFrontendTool(text: string, tools: readonly ToolDefinition[]): ToolDefinition | undefined {
  const said = text.toLowerCase();
  return tools.find(
    (t) => !OWN_TOOL.test(t.name) && (said.includes(t.name.toLowerCase()) || said.includes(spoken(t.name))),
  );
}

/** The result of a frontend tool when it is the last message (any tool but the agent's own), with its name. */
function frontendResult(ctx: RuleContext): { name: string; content: string; failed: boolean } | undefined {
  const result = lastToolResult(ctx);
  const name = result ? (result.name ?? callOf(ctx.messages, result)?.name ?? "") : "";
  if (!result || !name || OWN_TOOL.test(name)) return undefined;
  return { name, content: textOf(result.content), failed: result.status === "error" };
}

/**
 * The general agent's offline rules for frontend tools (tools the inspector's app declares and runs
 * itself, AG-UI's `tools`): when the inspector's message names one, the agent calls it (the run ends
 * with the call open for the app); when the app's result comes back, the agent passes it on. They come
 * first: a message that names a tool of the app asks for that tool.
 *
 * @example
 * new RuleChatModel({ rules: [...frontendToolRules(), ...generalRules()] });
 */
export function frontendToolRules(): Rule[] {
  return [
    {
      name: "frontend-tool-result",
      when: (ctx) => frontendResult(ctx) !== undefined,
      reply: (ctx) => {
        const result = frontendResult(ctx) as { name: string; content: string; failed: boolean };
        return result.failed
          ? `Uw app kon ${result.name} niet uitvoeren: ${result.content}`
          : `Uw app meldt (${result.name}): ${result.content}`;
      },
    },
    {
      name: "frontend-tool-call",
      when: (ctx) => ctx.last?.role === "user" && namedFrontendTool(textOf(ctx.last.content), ctx.tools) !== undefined,
      reply: (ctx) => {
        const tool = namedFrontendTool(textOf(ctx.last?.content), ctx.tools) as ToolDefinition;
        return { content: `Ik vraag uw app om ${spoken(tool.name)}.`, toolCalls: [{ name: tool.name, args: {} }] };
      },
    },
  ];
}
