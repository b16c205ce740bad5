import { describe, expect, it } from "vitest";
import { breakpointAnswer, breakpointQuestion } from "./pause-prompts.js";

describe("breakpoints", () => {
  it("asks for a state update before the next nodes, whatever the graph's state keys", () => {
    expect(breakpointQuestion(["publish"])).toContain("Paused before publish");
  });

  it("takes a JSON object or nothing; q stops; anything else is asked again", () => {
    expect(breakpointAnswer("")).toEqual({ update: {} });
    expect(breakpointAnswer('{"note":"x"}')).toEqual({ update: { note: "x" } });
    expect(breakpointAnswer("[1]")).toBeUndefined();
    expect(breakpointAnswer("a")).toBeUndefined();
    expect(breakpointAnswer("q")).toEqual({ stop: true });
  });
});
