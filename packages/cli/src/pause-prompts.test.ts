import { describe, expect, it } from "vitest";
import {
  answerHint,
  answerKindOf,
  breakpointAnswer,
  breakpointKindOf,
  breakpointQuestion,
  parseAnswer,
} from "./pause-prompts.js";

const now = () => new Date("2026-01-02T03:04:05.000Z");

describe("interrupt answers", () => {
  it("recognises approvals, quiz questions and free text", () => {
    expect(answerKindOf({ question: "Publish this?", draft: "d" }).kind).toBe("yes-no");
    expect(answerKindOf({ gate: "plan", question: "Plan OK?" }).kind).toBe("yes-no");
    expect(answerKindOf({ question: "Any changes to the draft?" }).kind).toBe("text");
    expect(answerKindOf("Which site?")).toEqual({ kind: "text", question: "Which site?" });
    const quiz = answerKindOf({
      action: "answer_question",
      question_num: 1,
      question_text: "¿Qué es un volumen?\nA) Un disco\nB) Almacenamiento persistente\nC) Una red",
    });
    expect(quiz.kind).toBe("choice");
    expect(quiz.kind === "choice" && quiz.options.map((o) => o.key)).toEqual(["A", "B", "C"]);
    expect(answerHint(quiz)).toBe("A/B/C or text");
    const clarification = answerKindOf({
      type: "clarification_request",
      questions: [{ question: "Wat is het adres?" }, { question: "Hygiëne in orde?", options: ["ja", "nee"] }],
      display_text: "1. Wat is het adres?\n2. Hygiëne in orde?",
    });
    expect(clarification).toMatchObject({
      kind: "questions",
      questions: [{ options: [] }, { options: ["ja", "nee"] }],
    });
  });

  it("parses typed lines into resume values", () => {
    const yesNo = { kind: "yes-no", question: "Approve?" } as const;
    expect(parseAnswer(yesNo, " Yes ")).toBe(true);
    expect(parseAnswer(yesNo, "n")).toBe(false);
    expect(parseAnswer(yesNo, '{"approved":true}')).toEqual({ approved: true });
    const choice = answerKindOf({ question_text: "Q\nA) x\nB) y" });
    expect(parseAnswer(choice, "b")).toBe("B");
    expect(parseAnswer(choice, "la b")).toBe("la b");
    const text = { kind: "text", question: "?" } as const;
    expect(parseAnswer(text, "add PPE")).toBe("add PPE");
    expect(parseAnswer(text, "[1,2]")).toEqual([1, 2]);
    expect(parseAnswer(text, "{broken")).toBe("{broken");
  });
});

describe("breakpoints", () => {
  const twi = { status: "review_needed", draft: "d", revision_feedback: null, approval_timestamp: null };

  it("recognises twi-author's review and final approval, and anything else as a state update", () => {
    expect(breakpointKindOf(["review"], twi).kind).toBe("twi-review");
    expect(breakpointKindOf(["approve"], twi).kind).toBe("twi-final-approval");
    expect(breakpointKindOf(["review"], { draft: "d" }).kind).toBe("state-update");
    expect(breakpointQuestion({ kind: "state-update", node: "publish" })).toContain("Paused before publish");
  });

  it("turns review decisions into the seed's state updates", () => {
    const review = { kind: "twi-review", node: "review" } as const;
    expect(breakpointAnswer(review, "a", now)).toEqual({ update: { status: "approved" } });
    expect(breakpointAnswer(review, "x", now)).toEqual({ update: { status: "rejected" } });
    expect(breakpointAnswer(review, "r", now)).toEqual({ askFeedback: true });
    expect(breakpointAnswer(review, "r add goggles", now)).toEqual({
      update: { status: "revision_requested", revision_feedback: "add goggles" },
    });
    expect(breakpointAnswer(review, "maybe", now)).toBeUndefined();
    expect(breakpointAnswer(review, "q", now)).toEqual({ stop: true });
    const final = { kind: "twi-final-approval", node: "approve" } as const;
    expect(breakpointAnswer(final, "y", now)).toEqual({
      update: { status: "approved", approval_timestamp: "2026-01-02T03:04:05.000Z" },
    });
    expect(breakpointAnswer(final, "n", now)).toEqual({ stop: true });
  });

  it("takes a JSON object or nothing at other breakpoints", () => {
    const bp = { kind: "state-update", node: "publish" } as const;
    expect(breakpointAnswer(bp, "", now)).toEqual({ update: {} });
    expect(breakpointAnswer(bp, '{"note":"x"}', now)).toEqual({ update: { note: "x" } });
    expect(breakpointAnswer(bp, "[1]", now)).toBeUndefined();
  });
});
