import { describe, expect, it } from "vitest";
import type { ChatDelta } from "./chat-model.js";
import { userMessage } from "./messages.js";
import { ModelError } from "./model-errors.js";
import { ScriptedChatModel } from "./scripted-chat-model.js";

const search = { name: "search", description: "Search", parameters: { type: "object", properties: {} } };

describe("ScriptedChatModel", () => {
  it("answers with its script in order: text, tool calls, functions", async () => {
    const model = new ScriptedChatModel([
      "first",
      { content: "calling", toolCalls: [{ name: "search", args: { q: "trellis" } }] },
      (messages) => `you said ${messages.at(-1)?.content}`,
    ]);
    expect((await model.invoke(["a"])).content).toBe("first");
    const second = await model.invoke(["b"], { tools: [search] });
    expect(second.toolCalls).toEqual([{ id: expect.stringMatching(/^call_/), name: "search", args: { q: "trellis" } }]);
    expect((await model.invoke(["c"])).content).toBe("you said c");
    expect(model.remaining).toBe(0);
  });

  it("records every call: normalised messages and options, without the signal", async () => {
    const model = new ScriptedChatModel(["ok"]);
    const controller = new AbortController();
    await model.invoke([{ type: "human", content: "hi" }], {
      tools: [search],
      temperature: 0,
      signal: controller.signal,
    });
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]).toEqual({
      messages: [{ id: expect.any(String), role: "user", content: "hi" }],
      tools: [search],
      temperature: 0,
    });
  });

  it("keeps a copy of the messages, so mutating them later does not rewrite the record", async () => {
    const model = new ScriptedChatModel(["ok"]);
    const msg = userMessage("original");
    await model.invoke([msg]);
    msg.content = "mutated";
    expect(model.calls[0]?.messages[0]?.content).toBe("original");
  });

  it("throws MODEL_SCRIPT_EXHAUSTED naming the call count and the last message when the script runs out", async () => {
    const model = new ScriptedChatModel(["only one"], { model: "planner" });
    await model.invoke(["first"]);
    const error = await model.invoke(["second question"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe("MODEL_SCRIPT_EXHAUSTED");
    expect((error as Error).message).toContain('"planner" was called 2 times but its script had 1 reply');
    expect((error as Error).message).toContain('"second question"');
    expect((error as ModelError).retryable).toBe(false);
  });

  it("throws Error entries, to simulate a provider failure", async () => {
    const boom = new Error("provider down");
    const model = new ScriptedChatModel([boom, "recovered"]);
    await expect(model.invoke(["x"])).rejects.toBe(boom);
    expect((await model.invoke(["x"])).content).toBe("recovered");
  });

  it("push() extends the script", async () => {
    const model = new ScriptedChatModel().push("later");
    expect((await model.invoke(["x"])).content).toBe("later");
  });

  it("streams replies as word chunks ending with the message, and reports an estimated usage", async () => {
    const model = new ScriptedChatModel(["one two three"]);
    const deltas: ChatDelta[] = [];
    for await (const d of model.stream(["12345678"])) deltas.push(d);
    expect(deltas.map((d) => (d.type === "text" ? d.text : d.type))).toEqual(["one", " two", " three", "message"]);
    const final = deltas.at(-1);
    expect(final?.type === "message" && final.message.usage).toEqual({
      inputTokens: 2,
      outputTokens: 4,
      totalTokens: 6,
    });
  });

  it("gives different message ids to successive identical calls", async () => {
    const model = new ScriptedChatModel(["same", "same"]);
    const a = await model.invoke(["q"]);
    const b = await model.invoke(["q"]);
    expect(a.id).not.toBe(b.id);
  });
});
