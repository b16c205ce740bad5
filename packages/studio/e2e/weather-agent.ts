/**
 * A ReAct agent for the studio's browser test of the run timeline's call rows: an offline rule model
 * (its usage estimated, four characters a token) asks for `get_weather` on the user's question, then
 * answers from the tool's result — one model call, one tool call, one model call.
 */
import { createReactAgent } from "@trellis/agents";
import { RuleChatModel, tool } from "@trellis/models";
import * as z from "zod";

const getWeather = tool({
  name: "get_weather",
  description: "The weather in a city",
  schema: z.object({ city: z.string() }),
  fn: ({ city }) => `Sunny and 21 °C in ${city}`,
});

/** The agent: `agent` ⇄ `tools`, with the weather tool. */
export function weatherAgent() {
  const model = new RuleChatModel({
    model: "weather-rules",
    rules: [
      {
        name: "ask-tool",
        when: /weather in (\w+)/i,
        reply: (ctx) => ({ toolCalls: [{ name: "get_weather", args: { city: ctx.match?.[1] ?? "Paris" } }] }),
      },
      { name: "answer", when: /./, on: "tool", reply: (ctx) => `Here is the forecast: ${ctx.text}` },
    ],
  });
  return createReactAgent({ model, tools: [getWeather], name: "weather-agent" });
}
