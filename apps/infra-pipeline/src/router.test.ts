import { describe, expect, it } from "vitest";
import type { ReviewOutput } from "./contracts.js";
import {
  CHANGE_WORDS,
  classifyIntent,
  QUERY_WORDS,
  routeFromDeployApproval,
  routeFromOrchestrator,
  routeFromPlanApproval,
  routeFromReview,
} from "./router.js";

describe("classifyIntent (the seed's word lists)", () => {
  it.each(CHANGE_WORDS.map((w) => [w]))("%s → change", (word) => {
    expect(classifyIntent(`please ${word} the thing`)).toBe("change");
  });

  it.each(QUERY_WORDS.map((w) => [w]))("%s → query", (word) => {
    expect(classifyIntent(`${word.toUpperCase()} the thing`)).toBe("query");
  });

  it("change words win over query words; whole words only; otherwise conversation", () => {
    expect(classifyIntent("show me how to create a bucket")).toBe("change");
    expect(classifyIntent("what is the status of req-1")).toBe("query");
    expect(classifyIntent("good morning")).toBe("conversation");
    expect(classifyIntent("the settings were created yesterday")).toBe("conversation"); // "set", "create" as parts
    expect(classifyIntent("addresses")).toBe("conversation");
  });
});

const review = (status: ReviewOutput["status"]): ReviewOutput => ({
  status,
  findings: [],
  checks: [],
  files_reviewed: [],
  revision: 1,
  summary: "",
});

describe("routers", () => {
  it("routeFromOrchestrator returns the intent, conversation by default", () => {
    expect(routeFromOrchestrator({ intent: "change" })).toBe("change");
    expect(routeFromOrchestrator({ intent: "query" })).toBe("query");
    expect(routeFromOrchestrator({ intent: "conversation" })).toBe("conversation");
    expect(routeFromOrchestrator({ intent: null })).toBe("conversation");
  });

  it("routeFromPlanApproval: not needed → approved; pending; approved; rejected even once pending is cleared", () => {
    expect(routeFromPlanApproval({ pending_approval: null, plan_approved: null })).toBe("approved");
    expect(routeFromPlanApproval({ pending_approval: "plan", plan_approved: null })).toBe("pending");
    expect(routeFromPlanApproval({ pending_approval: "plan", plan_approved: true })).toBe("approved");
    expect(routeFromPlanApproval({ pending_approval: "plan", plan_approved: false })).toBe("rejected");
    // The seed's stream_with_approval clears pending_approval with the answer; its router then said "approved".
    expect(routeFromPlanApproval({ pending_approval: null, plan_approved: false })).toBe("rejected");
  });

  it("routeFromReview: passed, needs_revision while retries remain, failed", () => {
    const base = { retry_count: 0, max_retries: 3 };
    expect(routeFromReview({ ...base, review_output: null })).toBe("failed");
    expect(routeFromReview({ ...base, review_output: review("passed") })).toBe("passed");
    expect(routeFromReview({ ...base, retry_count: 2, review_output: review("needs_revision") })).toBe(
      "needs_revision",
    );
    expect(routeFromReview({ ...base, retry_count: 3, review_output: review("needs_revision") })).toBe("failed");
    expect(routeFromReview({ ...base, review_output: review("failed") })).toBe("failed");
  });

  it("routeFromDeployApproval: dry run first, then the decision, else pending — and it writes nothing", () => {
    const state = Object.freeze({ dry_run: false, deploy_approved: null });
    expect(routeFromDeployApproval(state)).toBe("pending");
    expect(routeFromDeployApproval({ dry_run: true, deploy_approved: true })).toBe("dry_run");
    expect(routeFromDeployApproval({ dry_run: false, deploy_approved: true })).toBe("approved");
    expect(routeFromDeployApproval({ dry_run: false, deploy_approved: false })).toBe("rejected");
  });
});
