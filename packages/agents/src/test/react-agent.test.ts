import { MemorySaver } from "@trellis/core";
import { createChatModel, type Message, RuleChatModel, tool, userMessage } from "@trellis/models";
import { startFakeOpenAiServer } from "@trellis/models/testing";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createReactAgent } from "../index.js";

const weather = tool({
  name: "get_weather",
  description: "Current weather in a city",
  schema: z.object({ city: z.string() }),
  fn: ({ city }) => (city === "Paris" ? "18°C and sunny" : "unknown city"),
});
const population = tool({
  name: "get_population",
  description: "Population of a city",
  schema: z.object({ city: z.string() }),
  fn: ({ city }) => (city === "Paris" ? "2.1 million" : "unknown"),
});

const rules = new RuleChatModel({
  rules: [
    {
      name: "ask both tools",
      when: /weather and population of (\w+)/i,
      reply: (ctx) => ({
        content: "",
        toolCalls: [
          { name: "get_weather", args: { city: ctx.match?.[1] } },
          { name: "get_population", args: { city: ctx.match?.[1] } },
        ],
      }),
    },
    {
      name: "summarise",
      on: "tool",
      when: /./,
      reply: (ctx) => `Paris: ${ctx.toolResults.map((t) => t.content).join("; ")}.`,
    },
  ],
});

describe("createReactAgent", () => {
  it("answers through two tools with the offline RuleChatModel, streaming tokens", async () => {
    const agent = createReactAgent({ model: rules, tools: [weather, population], prompt: "Be brief." });
    const chunks: Array<[unknown, { node: string }]> = [];
    let final: { messages: Message[] } | undefined;
    for await (const [mode, chunk] of agent.stream(
      { messages: [userMessage("What are the weather and population of Paris?")] },
      { streamMode: ["messages", "values"] },
    ) as AsyncIterable<[string, unknown]>) {
      if (mode === "messages") chunks.push(chunk as [unknown, { node: string }]);
      else final = chunk as { messages: Message[] };
    }
    expect(final?.messages.at(-1)?.content).toBe("Paris: 18°C and sunny; 2.1 million.");
    expect(final?.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every(([, meta]) => meta.node === "agent")).toBe(true);
  });

  it("answers through the OpenAI protocol from a local server, streaming tokens", async () => {
    const server = await startFakeOpenAiServer([
      {
        toolCalls: [
          { id: "c1", name: "get_weather", args: { city: "Paris" } },
          { id: "c2", name: "get_population", args: { city: "Paris" } },
        ],
      },
      { content: "It is 18°C and sunny; 2.1 million people live there." },
    ]);
    try {
      const model = createChatModel({ provider: "openai", model: "gpt-4o-mini", apiKey: "test", baseURL: server.url });
      const agent = createReactAgent({ model, tools: [weather, population] });
      const tokens: string[] = [];
      let final: { messages: Message[] } | undefined;
      for await (const [mode, chunk] of agent.stream(
        { messages: [userMessage("Weather and population of Paris?")] },
        {
          streamMode: ["messages", "values"],
        },
      ) as AsyncIterable<[string, unknown]>) {
        if (mode === "messages") {
          const [delta] = chunk as [{ type: string; text?: string }];
          if (delta.type === "text") tokens.push(delta.text ?? "");
        } else final = chunk as { messages: Message[] };
      }
      expect(final?.messages.at(-1)?.content).toBe("It is 18°C and sunny; 2.1 million people live there.");
      expect(tokens.join("")).toBe("It is 18°C and sunny; 2.1 million people live there.");
      expect(server.requests).toHaveLength(2);
      const secondCall = server.requests[1]?.body as { messages: Array<{ role: string; content: string }> };
      expect(secondCall.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
        "18°C and sunny",
        "2.1 million",
      ]);
    } finally {
      await server.close();
    }
  });

  it("stops after maxIterations with a partial answer that says so", async () => {
    const looping = new RuleChatModel({
      rules: [{ when: () => true, reply: { toolCalls: [{ name: "get_weather", args: { city: "Paris" } }] } }],
    });
    const agent = createReactAgent({
      model: looping,
      tools: [weather],
      maxIterations: 3,
      checkpointer: new MemorySaver(),
    });
    const out = await agent.invoke({ messages: [userMessage("loop forever")] }, { threadId: "cap" });
    const last = out.messages.at(-1);
    expect(out.messages.filter((m) => m.role === "tool")).toHaveLength(3);
    expect(last?.role).toBe("assistant");
    expect(String(last?.content)).toMatch(/stopped after 3 tool rounds/);
    expect(String(last?.content)).toMatch(/18°C and sunny/);
  });
});
