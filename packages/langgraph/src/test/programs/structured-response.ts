import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ScriptedChatModel } from "../scripted-chat-model.js";
import type { Modules } from "./modules.js";

const Forecast = z.object({ city: z.string(), celsius: z.number(), dry: z.boolean() }).describe("A forecast.");

function lookup() {
  return tool(({ city }: { city: string }) => `${city}: 21 degrees, no rain`, {
    name: "lookup",
    description: "Looks a city's weather up.",
    schema: z.object({ city: z.string() }),
  });
}

/**
 * `createReactAgent` with `responseFormat`: after its tool loop the model answers once more through
 * LangChain's structured output (a zod schema, then `{ schema, prompt, name }`), read back as
 * `structuredResponse`; what the model was asked the second time is recorded too.
 */
export async function structuredResponse({ prebuilt }: Modules): Promise<unknown> {
  const asked: string[] = [];
  const reply = (name: string) => ({
    tool_calls: [{ id: `${name}-1`, name, args: { city: "Lyon", celsius: 21, dry: true } }],
  });
  const model = new ScriptedChatModel((messages, turn) => {
    asked.push(String(messages[0]?.content ?? ""));
    if (turn % 3 === 0) return { tool_calls: [{ id: `l-${turn}`, name: "lookup", args: { city: "Lyon" } }] };
    if (turn % 3 === 1) return { content: "It is 21 degrees and dry in Lyon." };
    return reply(turn === 2 ? "extract" : "Forecast");
  });
  const plain = prebuilt.createReactAgent({ llm: model, tools: [lookup()], responseFormat: Forecast });
  const first = await plain.invoke({ messages: [new HumanMessage("Weather in Lyon?")] });
  const prompted = prebuilt.createReactAgent({
    llm: model,
    tools: [lookup()],
    responseFormat: { schema: Forecast, prompt: "Answer as a forecast.", name: "Forecast" },
  });
  const second = await prompted.invoke({ messages: [new HumanMessage("And tomorrow?")] });
  return {
    first: { structured: first.structuredResponse, messages: first.messages.length },
    second: { structured: second.structuredResponse, messages: second.messages.length },
    asked,
  };
}
