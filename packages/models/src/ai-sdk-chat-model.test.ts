import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatDelta, ToolDefinition } from "./chat-model.js";
import { assistantMessage, systemMessage, toolMessage, userMessage } from "./messages.js";
import { createChatModel, type ProviderName } from "./providers.js";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "./testing/index.js";

const getWeather: ToolDefinition = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

let server: FakeOpenAiServer;
beforeEach(async () => {
  server = await startFakeOpenAiServer();
});
afterEach(async () => {
  await server.close();
});

const openai = () => createChatModel({ provider: "openai", model: "gpt-test", apiKey: "sk-test", baseURL: server.url });

async function collect(stream: AsyncIterable<ChatDelta>): Promise<ChatDelta[]> {
  const out: ChatDelta[] = [];
  for await (const d of stream) out.push(d);
  return out;
}

describe("AI SDK models against a local OpenAI-protocol server", () => {
  it("invoke: sends the conversation and returns the reply with usage", async () => {
    server.enqueue({ content: "Hello!", usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const reply = await openai().invoke([systemMessage("Be brief."), userMessage("Hi")]);
    expect(reply).toEqual({
      id: expect.any(String),
      role: "assistant",
      content: "Hello!",
      usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
    });
    const body = server.requests[0]?.body;
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
    expect(body.model).toBe("gpt-test");
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);
    expect(body.stream).toBeUndefined();
  });

  it("invoke: sends tools, tool choice, temperature and max tokens, and returns tool calls", async () => {
    server.enqueue({ toolCalls: [{ id: "call_1", name: "get_weather", args: { city: "Lima" } }] });
    const reply = await openai().invoke(["Weather in Lima?"], {
      tools: [getWeather],
      toolChoice: "required",
      temperature: 0,
      maxTokens: 50,
    });
    expect(reply.content).toBe("");
    expect(reply.toolCalls).toEqual([{ id: "call_1", name: "get_weather", args: { city: "Lima" } }]);
    const body = server.requests[0]?.body;
    expect(body.tools).toEqual([
      {
        type: "function",
        function: { name: "get_weather", description: getWeather.description, parameters: getWeather.parameters },
      },
    ]);
    expect(body.tool_choice).toBe("required");
    expect(body.temperature).toBe(0);
    expect(body.max_tokens).toBe(50);
  });

  it("invoke: keeps arguments that are not JSON as unparsedArgs", async () => {
    server.enqueue({ toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"city": Lima' }] });
    const reply = await openai().invoke(["x"], { tools: [getWeather] });
    expect(reply.toolCalls).toEqual([{ id: "call_1", name: "get_weather", args: {}, unparsedArgs: '{"city": Lima' }]);
  });

  it("sends tool calls and their results back in OpenAI's wire format", async () => {
    server.enqueue("It is 18°C in Lima.");
    const history = [
      userMessage("Weather in Lima?"),
      assistantMessage("", { toolCalls: [{ id: "call_1", name: "get_weather", args: { city: "Lima" } }] }),
      toolMessage("18°C", { toolCallId: "call_1" }),
    ];
    const reply = await openai().invoke(history, { tools: [getWeather] });
    expect(reply.content).toBe("It is 18°C in Lima.");
    expect(server.requests[0]?.body.messages).toEqual([
      { role: "user", content: "Weather in Lima?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Lima"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "18°C" },
    ]);
  });

  it("stream: yields text deltas over SSE, then the full message with usage", async () => {
    server.enqueue({ content: "Hello there, friend", chunkSize: 5 });
    const deltas = await collect(openai().stream(["Hi"]));
    const texts = deltas.flatMap((d) => (d.type === "text" ? [d.text] : []));
    expect(texts).toEqual(["Hello", " ther", "e, fr", "iend"]);
    const last = deltas.at(-1);
    expect(last?.type).toBe("message");
    if (last?.type !== "message") return;
    expect(last.message.content).toBe("Hello there, friend");
    expect(last.message.usage?.totalTokens).toBeGreaterThan(0);
    expect(deltas.every((d) => d.type === "message" || d.messageId === last.message.id)).toBe(true);
    expect(server.requests[0]?.body.stream).toBe(true);
  });

  it("stream: yields tool-call argument deltas and assembles the calls", async () => {
    server.enqueue({
      content: "Checking.",
      toolCalls: [
        { id: "call_a", name: "get_weather", args: { city: "Lima" } },
        { id: "call_b", name: "get_weather", args: { city: "Quito" } },
      ],
      chunkSize: 6,
    });
    const deltas = await collect(openai().stream(["Weather in Lima and Quito?"], { tools: [getWeather] }));
    const argsOf = (id: string) =>
      deltas.flatMap((d) => (d.type === "tool-call" && d.id === id ? [d.argsDelta] : [])).join("");
    expect(argsOf("call_a")).toBe('{"city":"Lima"}');
    expect(argsOf("call_b")).toBe('{"city":"Quito"}');
    expect(deltas.filter((d) => d.type === "tool-call").length).toBeGreaterThan(2);
    expect(deltas.find((d) => d.type === "tool-call" && d.id === "call_b")).toMatchObject({
      index: 1,
      name: "get_weather",
    });
    const last = deltas.at(-1);
    expect(last?.type === "message" && last.message.toolCalls).toEqual([
      { id: "call_a", name: "get_weather", args: { city: "Lima" } },
      { id: "call_b", name: "get_weather", args: { city: "Quito" } },
    ]);
  });

  it("invoke with onChunk streams under the hood and resolves to the assembled message", async () => {
    server.enqueue({ content: "one two", chunkSize: 3 });
    const seen: string[] = [];
    const reply = await openai().invoke(["Hi"], { onChunk: (d) => d.type === "text" && seen.push(d.text) });
    expect(seen.join("")).toBe("one two");
    expect(seen.length).toBe(3);
    expect(reply.content).toBe("one two");
    expect(server.requests[0]?.body.stream).toBe(true);
  });

  it("uses the model's default temperature unless the call sets one", async () => {
    server.enqueue("a", "b");
    const model = createChatModel({
      provider: "openai",
      model: "m",
      apiKey: "k",
      baseURL: server.url,
      temperature: 0.7,
    });
    await model.invoke(["x"]);
    await model.invoke(["x"], { temperature: 0.1 });
    expect(server.requests.map((r) => r.body.temperature)).toEqual([0.7, 0.1]);
  });

  const compatible: [ProviderName, string | undefined, string | undefined][] = [
    ["openai-compatible", "Bearer k", undefined],
    ["mistral", "Bearer k", undefined],
    ["azure", undefined, "k"],
  ];
  it.each(compatible)(
    "%s: invoke and stream with tool calls through the same protocol",
    async (provider, bearer, apiKeyHeader) => {
      server.enqueue("plain", {
        content: "",
        toolCalls: [{ id: "abcdefghi", name: "get_weather", args: { city: "Lima" } }],
      });
      const model = createChatModel({ provider, model: "m-test", apiKey: "k", baseURL: server.url });
      expect(model.provider).toBe(provider);
      expect(model.model).toBe("m-test");
      expect((await model.invoke(["Hi"])).content).toBe("plain");
      const deltas = await collect(model.stream(["Weather?"], { tools: [getWeather] }));
      const last = deltas.at(-1);
      expect(last?.type === "message" && last.message.toolCalls).toEqual([
        { id: "abcdefghi", name: "get_weather", args: { city: "Lima" } },
      ]);
      expect(server.requests[0]?.path).toMatch(/^\/v1\/chat\/completions/);
      expect(server.requests[0]?.headers.authorization).toBe(bearer);
      expect(server.requests[0]?.headers["api-key"]).toBe(apiKeyHeader);
    },
  );
});
