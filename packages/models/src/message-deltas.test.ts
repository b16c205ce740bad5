import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deltasFromMessage, splitIntoWords } from "./message-deltas.js";
import { assistantMessage } from "./messages.js";

describe("splitIntoWords", () => {
  it("splits before each word, keeping the whitespace", () => {
    expect(splitIntoWords("Hello there,  friend\n")).toEqual(["Hello", " there,", "  friend", "\n"]);
    expect(splitIntoWords("")).toEqual([]);
  });

  it("loses nothing: the chunks always join back to the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "b", " ", "\n", "\t", "é") }), (text) => {
        expect(splitIntoWords(text).join("")).toBe(text);
      }),
    );
  });
});

describe("deltasFromMessage", () => {
  it("emits text chunks, one chunk per tool call with its whole arguments, then the message", () => {
    const m = assistantMessage("Let me see", {
      id: "m",
      toolCalls: [
        { id: "c1", name: "a", args: { x: 1 } },
        { id: "c2", name: "b" },
      ],
    });
    expect([...deltasFromMessage(m)]).toEqual([
      { type: "text", messageId: "m", text: "Let" },
      { type: "text", messageId: "m", text: " me" },
      { type: "text", messageId: "m", text: " see" },
      { type: "tool-call", messageId: "m", index: 0, id: "c1", name: "a", argsDelta: '{"x":1}' },
      { type: "tool-call", messageId: "m", index: 1, id: "c2", name: "b", argsDelta: "{}" },
      { type: "message", message: m },
    ]);
  });
});
