import { describe, expect, it } from "vitest";
import {
  askApproval,
  askChoice,
  askForm,
  askText,
  formAnswer,
  parseFreeAnswer,
  parseTypedAnswer,
  pauseHint,
  readPause,
  reviewAnswer,
} from "./index.js";

/** LangChain's HITL request as `hitlRequest` in @trellis/agents builds it (both spellings). */
const hitl = {
  actionRequests: [{ name: "publish", args: { draft: "d" }, description: "Publish revision 2?\n\nhelp" }],
  reviewConfigs: [{ actionName: "publish", allowedDecisions: ["approve", "edit", "reject"] }],
  action_requests: [{ name: "publish", args: { draft: "d" }, description: "Publish revision 2?\n\nhelp" }],
  review_configs: [{ action_name: "publish", allowed_decisions: ["approve", "edit", "reject"] }],
};

describe("declared pauses", () => {
  it("a declared kind is read as declared, whatever its question says", () => {
    expect(readPause(askApproval("Go on?", { plan: 1 }))).toEqual({
      kind: "approve",
      question: "Go on?",
      details: { plan: 1 },
    });
    expect(readPause(askText("Publish the notes?"))).toEqual({ kind: "text", question: "Publish the notes?" });
    expect(readPause(askChoice("Pick", [{ key: "x", label: "X" }]))).toEqual({
      kind: "choose",
      question: "Pick",
      options: [{ key: "x", label: "X" }],
    });
    const schema = { type: "object", properties: { site: { type: "string" } }, required: ["site"] } as const;
    expect(readPause(askForm("Site?", { ...schema, required: ["site"] })).kind).toBe("form");
    // a `kind` key that is not a declaration (no question) is read by shape
    expect(readPause({ kind: "approve", prompt: "x" }).kind).toBe("text");
  });

  it("LangChain's HITL request is a review, in either spelling, answered with decisions", () => {
    const pause = readPause(hitl);
    expect(pause).toEqual({
      kind: "review",
      question: "Publish revision 2?",
      actions: [
        {
          name: "publish",
          args: { draft: "d" },
          description: "Publish revision 2?\n\nhelp",
          allowedDecisions: ["approve", "edit", "reject"],
        },
      ],
    });
    const { action_requests: _a, review_configs: _r, ...camel } = hitl;
    expect(readPause(camel)).toEqual(pause);
    if (pause.kind !== "review") throw new Error("not a review");
    expect(parseTypedAnswer(pause, "approve")).toEqual({ decisions: [{ type: "approve" }] });
    expect(parseTypedAnswer(pause, "reject shorter steps")).toEqual({
      decisions: [{ type: "reject", message: "shorter steps" }],
    });
    expect(parseTypedAnswer(pause, 'edit {"draft":"e"}')).toEqual({
      decisions: [{ type: "edit", editedAction: { name: "publish", args: { draft: "e" } } }],
    });
    expect(reviewAnswer(pause, [{ type: "respond", message: "m" }])).toEqual({
      decisions: [{ type: "respond", message: "m" }],
    });
    expect(pauseHint(pause)).toBe("approve | edit {json args} | reject [message]");
  });
});

describe("undeclared values, by shape", () => {
  it("recognises approvals, lettered choices, question lists and text", () => {
    expect(readPause({ question: "Publish this?", draft: "d" }).kind).toBe("approve");
    expect(readPause({ gate: "plan", question: "Plan OK?" }).kind).toBe("approve");
    expect(readPause({ question: "Any changes to the draft?" })).toEqual({
      kind: "text",
      question: "Any changes to the draft?",
    });
    expect(readPause("Which site?")).toEqual({ kind: "text", question: "Which site?" });
    const quiz = readPause({ action: "answer_question", question_text: "¿?\nA) uno\nB) dos\nC) tres" });
    expect(quiz).toMatchObject({ kind: "choose", options: [{ key: "A", label: "uno" }, { key: "B" }, { key: "C" }] });
    expect(pauseHint(quiz)).toBe("A/B/C or text");
    expect(
      readPause({
        type: "clarification_request",
        questions: [{ question: "Wat is het adres?" }, { question: "Hygiëne?", options: ["ja", "nee"] }],
        display_text: "1. Wat is het adres?\n2. Hygiëne?",
      }),
    ).toMatchObject({ kind: "questions", questions: [{ options: [] }, { options: ["ja", "nee"] }] });
  });

  it("parses typed lines and free answers into resume values", () => {
    const approve = { kind: "approve", question: "Approve?" } as const;
    expect(parseTypedAnswer(approve, " Yes ")).toBe(true);
    expect(parseTypedAnswer(approve, "n")).toBe(false);
    expect(parseTypedAnswer(approve, '{"approved":true}')).toEqual({ approved: true });
    const choice = readPause({ question_text: "Q\nA) x\nB) y" });
    expect(parseTypedAnswer(choice, "b")).toBe("B");
    expect(parseTypedAnswer(choice, "la b")).toBe("la b");
    const text = { kind: "text", question: "?" } as const;
    expect(parseTypedAnswer(text, "add PPE")).toBe("add PPE");
    expect(parseTypedAnswer(text, "[1,2]")).toEqual([1, 2]);
    expect(parseTypedAnswer(text, "{broken")).toBe("{broken");
    expect(parseFreeAnswer("12")).toBe(12);
    expect(parseFreeAnswer("12 bolts")).toBe("12 bolts");
  });
});

describe("form answers", () => {
  const pause = askForm("About the site", {
    type: "object",
    properties: {
      site: { type: "string", title: "Site" },
      visits: { type: "integer" },
      ok: { type: "boolean" },
      grade: { enum: ["A", "B"] },
    },
    required: ["site"],
  });
  it("converts typed fields to the schema's types and names what does not fit", () => {
    expect(formAnswer(pause, { site: " Hoofdstraat 2 ", visits: "3", ok: "true", grade: "B" })).toEqual({
      ok: true,
      value: { site: "Hoofdstraat 2", visits: 3, ok: true, grade: "B" },
    });
    expect(formAnswer(pause, { visits: "2.5", ok: "maybe", grade: "C" })).toEqual({
      ok: false,
      problems: [
        "Site is required.",
        "visits must be a whole number.",
        "ok must be true or false.",
        "grade must be one of A, B.",
      ],
    });
  });
});
