import { describe, expect, it } from "vitest";
import { SseParser } from "./sse-parser.js";

describe("SseParser", () => {
  it("parses events split across chunks at any point, with ids and JSON data", () => {
    const p = new SseParser();
    const text =
      'id: 1\nevent: metadata\ndata: {"run_id":"r"}\n\n: keep-alive\n\nid: 2\r\nevent: values\r\ndata: {"a":\r\n\r\n';
    const events = [...text].flatMap((ch) => p.push(ch));
    expect(events).toEqual([
      { id: "1", event: "metadata", data: { run_id: "r" } },
      { id: "2", event: "values", data: '{"a":' },
    ]);
  });

  it("joins multi-line data and defaults the event name to message", () => {
    const p = new SseParser();
    expect(p.push("data: line 1\ndata: line 2\n\n")).toEqual([
      { id: undefined, event: "message", data: "line 1\nline 2" },
    ]);
  });
});
