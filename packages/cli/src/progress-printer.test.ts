import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ProgressPrinter, payloadLines, showValue } from "./progress-printer.js";

function capture() {
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => {
    text += d.toString();
  });
  return { out, text: () => text };
}

describe("ProgressPrinter", () => {
  it("off a terminal prints one line per finished node and tokens as they come", () => {
    const c = capture();
    const p = new ProgressPrinter(c.out, false);
    p.nodeStarted("agent");
    p.token("Hel");
    p.token("lo");
    p.nodeFinished("agent", "done");
    p.nodeStarted("tools");
    p.nodeFinished("tools", "error", "timeout");
    p.stop();
    expect(c.text()).toBe("Hello\n✓ agent\n✗ tools: timeout\n");
  });

  it("on a terminal draws a spinner naming the running nodes and clears it", () => {
    const c = capture();
    const p = new ProgressPrinter(c.out, true);
    p.nodeStarted("write");
    p.nodeStarted("check");
    expect(c.text()).toContain("write, check");
    p.nodeFinished("write", "done");
    p.stop();
    expect(c.text()).toContain("\r\x1b[2K✓ write\n");
    expect(c.text().endsWith("\r\x1b[2K")).toBe(true);
  });
});

describe("showValue and payloadLines", () => {
  it("shows strings as they are, the rest as JSON, cut and indented", () => {
    expect(showValue("a\nb")).toBe("\n    a\n    b");
    expect(showValue({ a: 1 })).toBe('{"a":1}');
    expect(showValue("x".repeat(10), 4)).toBe("xxxx…");
    expect(payloadLines({ question: "Q?", n: 2 })).toEqual(["  question: Q?", "  n: 2"]);
    expect(payloadLines("plain")).toEqual(["  plain"]);
  });
});
