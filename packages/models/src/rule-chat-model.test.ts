import { describe, expect, it } from "vitest";
import type { ChatDelta, ToolDefinition } from "./chat-model.js";
import { assistantMessage, toolMessage, userMessage } from "./messages.js";
import { RuleChatModel } from "./rule-chat-model.js";

const getWeather: ToolDefinition = { name: "get_weather", description: "Weather", parameters: { type: "object" } };
const search: ToolDefinition = { name: "search", description: "Search", parameters: { type: "object" } };

function weatherModel() {
  return new RuleChatModel({
    rules: [
      { name: "greet", when: "hello", reply: "Hi! Ask me about the weather." },
      {
        name: "weather",
        when: /weather in (\w+)/i,
        reply: (ctx) => ({ toolCalls: [{ name: "get_weather", args: { city: ctx.match?.[1] } }] }),
      },
      { name: "report", when: /./, on: "tool", reply: (ctx) => `Forecast: ${ctx.text}` },
    ],
    fallback: "I only know the weather.",
  });
}

describe("RuleChatModel", () => {
  it("answers with the first matching rule; string patterns are case-insensitive substrings", async () => {
    const model = weatherModel();
    expect((await model.invoke(["HELLO there"])).content).toBe("Hi! Ask me about the weather.");
    expect(model.calls.map((c) => c.rule)).toEqual(["greet"]);
  });

  it("turns regex captures into tool calls", async () => {
    const reply = await weatherModel().invoke(["What's the weather in Lima?"], { tools: [getWeather] });
    expect(reply.content).toBe("");
    expect(reply.toolCalls).toEqual([
      { id: expect.stringMatching(/^call_/), name: "get_weather", args: { city: "Lima" } },
    ]);
  });

  it("runs a full ReAct turn: user-rules do not fire again on tool results, tool-rules do", async () => {
    const model = weatherModel();
    const first = await model.invoke(["weather in Lima"], { tools: [getWeather] });
    const call = first.toolCalls?.[0];
    if (!call) throw new Error("expected a tool call");
    const history = [
      userMessage("weather in Lima"),
      first,
      toolMessage("18°C", { toolCallId: call.id, name: call.name }),
    ];
    const second = await model.invoke(history, { tools: [getWeather] });
    expect(second.content).toBe("Forecast: 18°C");
    expect(second.toolCalls).toBeUndefined();
    expect(model.calls.map((c) => c.rule)).toEqual(["weather", "report"]);
  });

  it("skips a rule whose tool is not offered in this call, falling through to later rules", async () => {
    const model = new RuleChatModel({
      rules: [
        { when: /weather/, reply: { toolCalls: [{ name: "get_weather", args: {} }] } },
        { when: /weather/, reply: "No weather tool here." },
      ],
    });
    expect((await model.invoke(["weather?"], { tools: [search] })).content).toBe("No weather tool here.");
    expect((await model.invoke(["weather?"], { tools: [getWeather] })).toolCalls?.[0]?.name).toBe("get_weather");
  });

  it("uses the fallback when nothing matches; the default fallback quotes the message", async () => {
    expect((await weatherModel().invoke(["tell me a joke"])).content).toBe("I only know the weather.");
    const plain = new RuleChatModel({ rules: [] });
    const reply = await plain.invoke(["tell me a joke"]);
    expect(reply.content).toContain('no rule matched "tell me a joke"');
    expect(plain.calls[0]?.rule).toBe("fallback");
  });

  it("lets predicate rules look at the whole conversation", async () => {
    const model = new RuleChatModel({
      rules: [{ when: (ctx) => ctx.messages.filter((m) => m.role === "user").length >= 2, reply: "second question" }],
      fallback: "first question",
    });
    expect((await model.invoke(["a"])).content).toBe("first question");
    expect((await model.invoke(["a", assistantMessage("b"), "c"])).content).toBe("second question");
  });

  it("is deterministic: the same conversation gives the same message, ids included", async () => {
    const a = await weatherModel().invoke(["weather in Quito"], { tools: [getWeather] });
    const b = await weatherModel().invoke(["weather in Quito"], { tools: [getWeather] });
    expect(a).toEqual(b);
    const c = await weatherModel().invoke(["weather in Cusco"], { tools: [getWeather] });
    expect(c.id).not.toBe(a.id);
    expect(c.toolCalls?.[0]?.id).not.toBe(a.toolCalls?.[0]?.id);
  });

  it("is not fooled by a global regex's lastIndex between calls", async () => {
    const model = new RuleChatModel({ rules: [{ when: /yes/g, reply: "matched" }], fallback: "missed" });
    expect((await model.invoke(["yes"])).content).toBe("matched");
    expect((await model.invoke(["yes"])).content).toBe("matched");
  });

  it("streams the reply as word chunks", async () => {
    const deltas: ChatDelta[] = [];
    for await (const d of weatherModel().stream(["hello"])) deltas.push(d);
    expect(deltas.filter((d) => d.type === "text").length).toBe(6);
    expect(deltas.at(-1)?.type).toBe("message");
  });

  it("rejects a rule without a usable pattern", () => {
    expect(() => new RuleChatModel({ rules: [{ when: 3 as unknown as string, reply: "x" }] })).toThrow(/needs `when`/);
  });
});

describe("RuleChatModel call records", () => {
  it("keeps only the latest maxRecordedCalls calls", async () => {
    const model = new RuleChatModel({ rules: [{ when: /./, reply: "ok" }], maxRecordedCalls: 3 });
    for (const text of ["a", "b", "c", "d", "e"]) await model.invoke([text]);
    expect(model.calls).toHaveLength(3);
    expect(model.calls.map((c) => c.messages.at(-1)?.content)).toEqual(["c", "d", "e"]);
  });
});
