/** The ReAct agent's model script and tools of the call-report tests (`call-reports.test.ts`, `fixture-plain-run.ts`). */
import { ScriptedChatModel, tool } from "@trellis/models";
import * as z from "zod";

export const weather = tool({
  name: "get_weather",
  description: "The weather in a city",
  schema: z.object({ city: z.string() }),
  fn: ({ city }) => `sunny in ${city}`,
});
export const broken = tool({
  name: "broken",
  description: "Always fails",
  schema: z.object({}),
  fn: () => {
    throw new Error("the tool's backend is down: secret-token-123");
  },
});

export function script() {
  return new ScriptedChatModel(
    [
      {
        toolCalls: [
          { name: "get_weather", args: { city: "Paris" } },
          { name: "broken", args: {} },
        ],
        usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
      },
      { content: "It is sunny in Paris.", usage: { inputTokens: 130, outputTokens: 5, totalTokens: 135 } },
    ],
    { model: "m-weather" },
  );
}
