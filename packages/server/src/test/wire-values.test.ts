/**
 * `wireValue`, the one translation of values for the Agent Server API: messages at any depth become
 * LangChain's, HITL requests LangChain's snake_case ones; everything else is left as it is (the same
 * object when nothing in it changed, dates and other class instances untouched).
 */
import { describe, expect, it } from "vitest";
import { wireMessage, wireValue } from "../streams/wire-values.js";

describe("wireValue", () => {
  it("translates messages wherever they sit, and only what looks like one", () => {
    const call = { id: "c1", name: "f", args: { a: 1 }, unparsedArgs: "{a:1" };
    const value = {
      messages: [
        {
          id: "a1",
          role: "assistant",
          content: "",
          toolCalls: [call],
          usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3, reasoningTokens: 1 },
        },
      ],
      nested: { last: { id: "t1", role: "tool", content: "ok", toolCallId: "c1", status: "error" } },
      notAMessage: { role: "admin", content: "x" },
    };
    expect(wireValue(value)).toEqual({
      messages: [
        {
          id: "a1",
          type: "ai",
          content: "",
          tool_calls: [{ id: "c1", name: "f", args: { a: 1 }, type: "tool_call" }],
          usage_metadata: {
            input_tokens: 1,
            output_tokens: 2,
            total_tokens: 3,
            output_token_details: { reasoning: 1 },
          },
        },
      ],
      nested: { last: { id: "t1", type: "tool", content: "ok", tool_call_id: "c1", status: "error" } },
      notAMessage: { role: "admin", content: "x" },
    });
    expect(value.messages[0]?.role).toBe("assistant"); // the caller's value is not changed
  });

  it("keeps one spelling of a HITL request, whichever it came in", () => {
    const requests = [{ name: "deploy", args: {}, description: "Deploy?" }];
    expect(
      wireValue({
        pause: "gate",
        actionRequests: requests,
        reviewConfigs: [{ actionName: "deploy", allowedDecisions: ["approve"] }],
      }),
    ).toEqual({
      pause: "gate",
      action_requests: requests,
      review_configs: [{ action_name: "deploy", allowed_decisions: ["approve"] }],
    });
  });

  it("returns the same object when nothing changed, and leaves class instances alone", () => {
    const at = new Date(0);
    const value = { at, list: [1, "two", { three: 3 }], tags: new Set(["a"]) };
    expect(wireValue(value)).toBe(value);
    expect(wireValue({ at }).at).toBe(at);
  });

  it("a message already carrying a type gets the one its role says, once", () => {
    expect(wireMessage({ id: "u1", role: "user", type: "human", content: "hi" })).toEqual({
      id: "u1",
      type: "human",
      content: "hi",
    });
  });
});
