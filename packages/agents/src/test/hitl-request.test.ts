/**
 * The shared human-in-the-loop request and decision reader that the tool-call review and the apps'
 * approval pauses use: the request carries both spellings, and only a well-formed answer is a decision.
 */
import { describe, expect, it } from "vitest";
import { hitlRequest, readDecisions } from "../index.js";

const deploy = { name: "deploy", allowedDecisions: ["approve", "reject"] as const };

describe("hitlRequest / readDecisions", () => {
  it("builds LangChain's request in both spellings", () => {
    const request = hitlRequest([{ ...deploy, args: { env: "dev" }, description: "Deploy?" }]);
    expect(request.action_requests).toEqual([{ name: "deploy", args: { env: "dev" }, description: "Deploy?" }]);
    expect(request.review_configs).toEqual([{ action_name: "deploy", allowed_decisions: ["approve", "reject"] }]);
    expect(request.actionRequests).toEqual(request.action_requests);
    expect(request.reviewConfigs).toEqual([{ actionName: "deploy", allowedDecisions: ["approve", "reject"] }]);
  });

  it("reads well-formed decisions", () => {
    expect(readDecisions({ decisions: [{ type: "reject", message: "not now" }] }, [deploy])).toEqual({
      ok: true,
      decisions: [{ type: "reject", message: "not now" }],
    });
    const edit = { type: "edit", edited_action: { name: "deploy", args: { env: "tst" } } };
    expect(readDecisions({ decisions: [edit] }, [{ name: "deploy", allowedDecisions: ["edit"] }])).toEqual({
      ok: true,
      decisions: [edit],
    });
  });

  it.each([
    ["not an object", "yes"],
    ["no decisions", { approved: true }],
    ["too many", { decisions: [{ type: "approve" }, { type: "approve" }] }],
    ["a type not allowed", { decisions: [{ type: "edit", editedAction: { name: "deploy", args: {} } }] }],
    ["an unknown type", { decisions: [{ type: "maybe" }] }],
    ["a message that is not text", { decisions: [{ type: "reject", message: 42 }] }],
  ])("refuses %s, saying why", (_what, answer) => {
    const read = readDecisions(answer, [deploy]);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.reason).toMatch(/decision/i);
  });

  it("refuses an edit without an edited action whose args are an object", () => {
    const allowed = [{ name: "deploy", allowedDecisions: ["edit"] as const }];
    expect(readDecisions({ decisions: [{ type: "edit" }] }, allowed).ok).toBe(false);
    expect(
      readDecisions({ decisions: [{ type: "edit", edited_action: { name: "deploy", args: [1] } }] }, allowed).ok,
    ).toBe(false);
  });
});
