import { describe, expect, it } from "vitest";
import {
  breakpointForm,
  changedKeys,
  documentLinks,
  interruptForm,
  joinAnswers,
  parseFreeAnswer,
  twiDecision,
} from "./answer-forms.js";
import { exampleInput } from "./example-inputs.js";

describe("interrupt forms", () => {
  it("recognises approvals (infra-pipeline gates, approval-flow), quiz options (tutor) and text", () => {
    expect(interruptForm({ gate: "deploy", question: "Deploy to prd?" }).kind).toBe("approval");
    expect(interruptForm({ question: "Publish this?" }).kind).toBe("approval");
    expect(interruptForm({ question: "Any changes to the draft?" })).toEqual({
      kind: "text",
      question: "Any changes to the draft?",
    });
    const quiz = interruptForm({ action: "answer_question", question_text: "¿?\nA) uno\nB) dos\nC) tres" });
    expect(quiz).toMatchObject({ kind: "choice", options: [{ key: "A", label: "uno" }, { key: "B" }, { key: "C" }] });
    expect(interruptForm("What is the inspection site?").kind).toBe("text");
    const clarification = interruptForm({
      type: "clarification_request",
      questions: [{ question: "Wat is het adres?" }, { question: "Was de hygiëne in orde?", options: ["ja", "nee"] }],
      display_text: "1. Wat is het adres?\n2. Was de hygiëne in orde?",
    });
    expect(clarification).toMatchObject({
      kind: "questions",
      questions: [
        { question: "Wat is het adres?", options: [] },
        { question: "Was de hygiëne in orde?", options: ["ja", "nee"] },
      ],
    });
    expect(joinAnswers(["hoofdstraat 2", " ja "])).toBe("hoofdstraat 2, ja");
  });

  it("reads the free answer box as JSON when it is JSON", () => {
    expect(parseFreeAnswer("true")).toBe(true);
    expect(parseFreeAnswer('{"a":1}')).toEqual({ a: 1 });
    expect(parseFreeAnswer("12")).toBe(12);
    expect(parseFreeAnswer("12 bolts")).toBe("12 bolts");
    expect(parseFreeAnswer("add PPE")).toBe("add PPE");
  });
});

describe("twi-author breakpoints", () => {
  const state = { status: "review_needed", draft: "d", revision_feedback: null, approval_timestamp: null };
  it("offers review decisions before review and final approval before approve", () => {
    expect(breakpointForm(["review"], state).kind).toBe("twi-review");
    expect(breakpointForm(["approve"], state).kind).toBe("twi-final-approval");
    expect(breakpointForm(["publish"], state).kind).toBe("continue");
    expect(twiDecision("revision", " more PPE ", new Date(0))).toEqual({
      status: "revision_requested",
      revision_feedback: "more PPE",
    });
    expect(twiDecision("final", "", new Date(0))).toEqual({
      status: "approved",
      approval_timestamp: "1970-01-01T00:00:00.000Z",
    });
  });
});

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
    expect(exampleInput("twi-author", [])).toMatchObject({ channel: "cli", status: "processing" });
    expect(exampleInput("chat-bot", ["messages"])).toEqual({ messages: [{ role: "user", content: "Hello" }] });
    expect(exampleInput("x", [])).toEqual({});
  });
});
