import { describe, expect, it } from "vitest";
import { GraphInterrupt } from "./command.js";

// issue 25: capturing a stack trace was most of the cost of every interrupt() (a pause is control flow)
describe("GraphInterrupt", () => {
  it("captures no stack trace and leaves Error.stackTraceLimit as it was", () => {
    const before = Error.stackTraceLimit;
    const paused = new GraphInterrupt([{ id: "i1", value: "q", node: "ask", namespace: "" }]);
    expect(paused.stack ?? "").not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error("after").stack).toMatch(/\n\s+at /);
    expect(paused).toBeInstanceOf(GraphInterrupt);
    expect(paused).toBeInstanceOf(Error);
    expect(paused.message).toBe("Graph interrupted (1 pending)");
    expect(paused.interrupts[0]?.value).toBe("q");
  });
});
