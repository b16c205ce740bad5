import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildTranscript, formatTranscript, OMITTED_MARKER, parseTranscript } from "./transcript-format.js";

const user = (content: string) => ({ role: "user", content });
const agent = (content: string) => ({ role: "assistant", content });

describe("transcript format", () => {
  it("formats messages as Human/Agent lines, oldest first", () => {
    expect(formatTranscript([user("Tell me about John Keells"), agent("A conglomerate.")])).toBe(
      "Human: Tell me about John Keells\nAgent: A conglomerate.",
    );
  });

  it("ends the transcript with the new message, which appears exactly once", () => {
    const history = [user("Tell me about John Keells"), agent("A conglomerate.")];
    const transcript = buildTranscript(history, "What companies do they own?");
    expect(transcript).toBe(
      "Human: Tell me about John Keells\nAgent: A conglomerate.\nHuman: What companies do they own?",
    );
    expect(transcript.split("What companies do they own?")).toHaveLength(2);
    expect(buildTranscript([], "Hi")).toBe("Human: Hi");
  });

  it("drops whole turns from the oldest when the transcript is too long, keeping the new message", () => {
    const history = [user("q1 ".repeat(50)), agent("a1 ".repeat(50)), user("q2"), agent("a2"), user("q3"), agent("a3")];
    const transcript = buildTranscript(history, "q4", { maxChars: 120 });
    expect(transcript).toBe(`${OMITTED_MARKER}\nHuman: q2\nAgent: a2\nHuman: q3\nAgent: a3\nHuman: q4`);
    expect(buildTranscript(history, "q4", { maxMessages: 3 })).toBe(
      `${OMITTED_MARKER}\nHuman: q3\nAgent: a3\nHuman: q4`,
    );
    const huge = "x".repeat(500);
    expect(buildTranscript(history, huge, { maxChars: 200 })).toBe(`${OMITTED_MARKER}\nHuman: ${huge}`);
  });

  it("parses multi-line messages back into turns and ignores the omission marker", () => {
    expect(parseTranscript(`${OMITTED_MARKER}\nHuman: hi\nAgent: line 1\nline 2\nHuman: ok`)).toEqual([
      { speaker: "Human", text: "hi" },
      { speaker: "Agent", text: "line 1\nline 2" },
      { speaker: "Human", text: "ok" },
    ]);
  });

  it("round-trips: parse(format(messages)) gives the messages back (property)", () => {
    const line = fc.string().filter((s) => !s.includes("\n"));
    const content = fc
      .array(line, { minLength: 1, maxLength: 3 })
      .map((lines) => lines.join("\n"))
      .filter((s) => !/(^|\n)(Human|Agent):/.test(s));
    const message = fc.record({ role: fc.constantFrom("user", "assistant"), content });
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), (messages) => {
        const turns = parseTranscript(formatTranscript(messages));
        expect(turns).toEqual(
          messages.map((m) => ({ speaker: m.role === "user" ? "Human" : "Agent", text: m.content })),
        );
      }),
    );
  });
});
