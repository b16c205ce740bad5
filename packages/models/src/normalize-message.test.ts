import { describe, expect, it } from "vitest";
import { assistantMessage, type Message, toolMessage, userMessage } from "./messages.js";
import { InvalidMessageError, normalizeMessage, normalizeMessages, parseToolArgs } from "./normalize-message.js";

const fixedId = { newId: () => "id-1" };

describe("normalizeMessage: LangChain shapes", () => {
  it("maps LangChain dict types to roles", () => {
    expect(normalizeMessage({ type: "human", content: "hi" }, fixedId)).toEqual({
      id: "id-1",
      role: "user",
      content: "hi",
    });
    expect(normalizeMessage({ type: "ai", content: "yo" }, fixedId).role).toBe("assistant");
    expect(normalizeMessage({ type: "system", content: "s" }, fixedId).role).toBe("system");
    expect(normalizeMessage({ type: "tool", content: "r", tool_call_id: "c1" }, fixedId)).toEqual({
      id: "id-1",
      role: "tool",
      content: "r",
      toolCallId: "c1",
    });
  });

  it("accepts role aliases human and ai, and OpenAI's developer role as system", () => {
    expect(normalizeMessage({ role: "human", content: "a" }).role).toBe("user");
    expect(normalizeMessage({ role: "ai", content: "a" }).role).toBe("assistant");
    expect(normalizeMessage({ role: "developer", content: "a" }).role).toBe("system");
  });

  it("reads LangChain tool_calls with object args, usage_metadata, and keeps the message id", () => {
    const m = normalizeMessage({
      type: "ai",
      id: "run-1",
      content: "",
      tool_calls: [{ id: "c1", name: "search", args: { q: "x" }, type: "tool_call" }],
      usage_metadata: { input_tokens: 7, output_tokens: 3, total_tokens: 10 },
      response_metadata: { model: "dropped" },
    });
    expect(m).toEqual({
      id: "run-1",
      role: "assistant",
      content: "",
      toolCalls: [{ id: "c1", name: "search", args: { q: "x" } }],
      usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 },
    });
  });

  it("keeps LangChain invalid_tool_calls as calls with unparsed args", () => {
    const m = normalizeMessage({
      type: "ai",
      content: "",
      invalid_tool_calls: [{ id: "c9", name: "f", args: "{oops" }],
    });
    expect(m.role === "assistant" && m.toolCalls).toEqual([{ id: "c9", name: "f", args: {}, unparsedArgs: "{oops" }]);
  });

  it("unwraps LangChain's serialised constructor form", () => {
    const m = normalizeMessage({
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "HumanMessage"],
      kwargs: { content: "hola", id: "h1" },
    });
    expect(m).toEqual({ id: "h1", role: "user", content: "hola" });
  });

  it("reads LangChain message class instances through getType()", () => {
    class FakeAIMessage {
      content = "from a class";
      tool_calls = [{ id: "c1", name: "f", args: { a: 1 } }];
      getType() {
        return "ai";
      }
    }
    const m = normalizeMessage(new FakeAIMessage(), fixedId);
    expect(m).toEqual({
      id: "id-1",
      role: "assistant",
      content: "from a class",
      toolCalls: [{ id: "c1", name: "f", args: { a: 1 } }],
    });
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
  });

  it("joins text content blocks", () => {
    const m = normalizeMessage({
      type: "human",
      content: [{ type: "text", text: "a" }, "b", { type: "text", text: "c" }],
    });
    expect(m.content).toBe("abc");
  });
});

describe("normalizeMessage: OpenAI wire shapes", () => {
  it("parses function.arguments JSON text and null content", () => {
    const m = normalizeMessage({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    });
    expect(m).toMatchObject({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Paris" } }],
      usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
    });
  });

  it("keeps arguments that are not a JSON object as unparsedArgs instead of failing", () => {
    const m = normalizeMessage({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "[1,2]" } }],
    });
    expect(m.role === "assistant" && m.toolCalls?.[0]).toEqual({
      id: "c1",
      name: "f",
      args: {},
      unparsedArgs: "[1,2]",
    });
  });

  it("reads tool_call_id on tool messages", () => {
    expect(normalizeMessage({ role: "tool", tool_call_id: "c1", content: "ok" })).toMatchObject({
      role: "tool",
      toolCallId: "c1",
    });
  });
});

describe("normalizeMessage: Trellis messages and shorthands", () => {
  it("is the identity (deep-equal) on Trellis messages, tool-call state included", () => {
    const list: Message[] = [
      userMessage("a", { id: "1" }),
      { id: "2", role: "assistant", content: "", toolCalls: [{ id: "c", name: "f", args: {}, unparsedArgs: "{x" }] },
      toolMessage("err", { id: "3", toolCallId: "c", name: "f", status: "error" }),
      assistantMessage("done", {
        id: "4",
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedInputTokens: 1 },
      }),
    ];
    expect(normalizeMessages(list)).toEqual(list);
  });

  it("turns a string into a user message and a [role, content] pair into a message", () => {
    expect(normalizeMessage("hi", fixedId)).toEqual({ id: "id-1", role: "user", content: "hi" });
    expect(normalizeMessage(["ai", "hello"], fixedId)).toEqual({ id: "id-1", role: "assistant", content: "hello" });
  });

  it("normalizeMessages accepts a single message, a single pair, or a list", () => {
    expect(normalizeMessages("hi").map((m) => m.role)).toEqual(["user"]);
    expect(normalizeMessages(["system", "rules"]).map((m) => m.role)).toEqual(["system"]);
    expect(normalizeMessages([["system", "s"], "q", { type: "ai", content: "a" }]).map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
    ]);
  });
});

describe("normalizeMessage: unusable input", () => {
  const cases: [string, unknown, RegExp][] = [
    ["no role", { content: "x" }, /has no `role`/],
    ["unknown role", { role: "robot", content: "x" }, /role "robot"/],
    ["tool without call id", { role: "tool", content: "x" }, /needs `toolCallId`/],
    ["user without content", { role: "user" }, /needs `content`/],
    [
      "image part with no URL",
      { role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] },
      /http\(s\) or a data: URL/,
    ],
    ["audio part", { role: "user", content: [{ type: "input_audio", input_audio: {} }] }, /"input_audio" part/],
    ["number", 42, /expected an object or a string/],
    [
      "tool call without name",
      { role: "assistant", content: "", tool_calls: [{ id: "c", args: {} }] },
      /has no `name`/,
    ],
  ];
  it.each(cases)("rejects %s with InvalidMessageError", (_label, input, message) => {
    let error: unknown;
    try {
      normalizeMessage(input as object);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidMessageError);
    expect((error as InvalidMessageError).code).toBe("INVALID_ARGUMENT");
    expect((error as Error).message).toMatch(message);
  });

  it("names the position of the bad message in a list", () => {
    expect(() => normalizeMessages(["ok", { role: "robot", content: "x" }])).toThrow(/^Message 1 cannot be used/);
    try {
      normalizeMessages(["ok", { role: "robot", content: "x" }]);
    } catch (e) {
      expect((e as InvalidMessageError).details.index).toBe(1);
    }
  });
});

describe("parseToolArgs", () => {
  it("accepts objects and JSON object text; keeps anything else as unparsed text", () => {
    expect(parseToolArgs({ a: 1 })).toEqual({ args: { a: 1 } });
    expect(parseToolArgs('{"a":1}')).toEqual({ args: { a: 1 } });
    expect(parseToolArgs("")).toEqual({ args: {} });
    expect(parseToolArgs(undefined)).toEqual({ args: {} });
    expect(parseToolArgs('"str"')).toEqual({ args: {}, unparsedArgs: '"str"' });
    expect(parseToolArgs([1])).toEqual({ args: {}, unparsedArgs: "[1]" });
  });
});
