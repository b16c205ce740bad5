import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  hasToolCalls,
  isAssistantMessage,
  isToolMessage,
  systemMessage,
  toolMessage,
  userMessage,
} from "./messages.js";

describe("message builders", () => {
  it("build plain OpenAI-shaped objects that survive a JSON round trip unchanged", () => {
    const messages = [
      systemMessage("Be brief.", { id: "s1" }),
      userMessage("Weather?", { id: "u1", name: "ana" }),
      assistantMessage("", {
        id: "a1",
        toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Paris" } }],
        usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
      }),
      toolMessage("18°C", { id: "t1", toolCallId: "c1", name: "get_weather" }),
    ];
    expect(messages).toEqual([
      { id: "s1", role: "system", content: "Be brief." },
      { id: "u1", role: "user", content: "Weather?", name: "ana" },
      {
        id: "a1",
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Paris" } }],
        usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
      },
      { id: "t1", role: "tool", content: "18°C", toolCallId: "c1", name: "get_weather" },
    ]);
    expect(JSON.parse(JSON.stringify(messages))).toEqual(messages);
    for (const m of messages) expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
  });

  it("never writes undefined optional keys", () => {
    expect(Object.keys(userMessage("hi"))).toEqual(["id", "role", "content"]);
    expect(Object.keys(assistantMessage("hi", { toolCalls: [] }))).toEqual(["id", "role", "content"]);
    expect(Object.keys(toolMessage("x", { toolCallId: "c" }))).toEqual(["id", "role", "content", "toolCallId"]);
  });

  it("gives distinct ids to messages and to tool calls written without one", () => {
    const a = assistantMessage("", { toolCalls: [{ name: "f" }, { name: "f" }] });
    expect(a.id).not.toBe(userMessage("x").id);
    const [first, second] = a.toolCalls ?? [];
    expect(first?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(first?.id).not.toBe(second?.id);
    expect(first?.args).toEqual({});
  });

  it("copies tool-call args so later edits of the input do not leak in", () => {
    const args = { q: "a" };
    const m = assistantMessage("", { toolCalls: [{ name: "s", args }] });
    args.q = "changed";
    expect(m.toolCalls?.[0]?.args).toEqual({ q: "a" });
  });

  it("marks tool error results with status error", () => {
    expect(toolMessage("boom", { toolCallId: "c", status: "error" }).status).toBe("error");
  });
});

describe("message guards", () => {
  it("hasToolCalls is true only for assistant messages with at least one call", () => {
    expect(hasToolCalls(assistantMessage("", { toolCalls: [{ name: "f" }] }))).toBe(true);
    expect(hasToolCalls(assistantMessage("done"))).toBe(false);
    expect(hasToolCalls(userMessage("f"))).toBe(false);
    expect(hasToolCalls(undefined)).toBe(false);
  });

  it("isAssistantMessage and isToolMessage narrow by role", () => {
    const list = [userMessage("a"), assistantMessage("b"), toolMessage("c", { toolCallId: "x" })];
    expect(list.filter(isAssistantMessage).map((m) => m.content)).toEqual(["b"]);
    expect(list.filter(isToolMessage).map((m) => m.toolCallId)).toEqual(["x"]);
  });
});
