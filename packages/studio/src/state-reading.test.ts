import { describe, expect, it } from "vitest";
import { exampleInput } from "./example-inputs.js";
import { changedKeys, documentLinks } from "./state-reading.js";

describe("state helpers", () => {
  it("finds document links and the keys a fork changed", () => {
    expect(
      documentLinks({ pdf_url: "http://h/b/x.pdf?sig=1", pdf_blob_name: "x.pdf", other: "http://h/page" }),
    ).toEqual([{ key: "pdf_url", url: "http://h/b/x.pdf?sig=1" }]);
    expect(documentLinks(null)).toEqual([]);
    expect(changedKeys({ a: 1, log: ["x"] }, { a: 2, log: ["x"] })).toEqual({ a: 2 });
  });

  it("gives example inputs for the reference graphs", () => {
    expect(exampleInput("approval-flow", [])).toHaveProperty("request");
    expect(exampleInput("twi-author", [])).toMatchObject({ channel: "cli", revision_count: 0 });
    expect(exampleInput("chat-bot", ["messages"])).toEqual({ messages: [{ role: "user", content: "Hello" }] });
    expect(exampleInput("x", [])).toEqual({});
  });
});
