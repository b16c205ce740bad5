/**
 * Issue 33 finding 1, twi-author: the review's approval sent twice (a double click, a retried request)
 * answers the review once; the final sign-off is never given by the second copy. Both copies arrive
 * while the review waits; the second is read after the first has run to the final approval, as a slow
 * network delivers it: it is refused (409 RESUME_MISMATCH, naming the final approval's interrupt id),
 * and nothing is published or recorded until someone answers the final approval.
 */
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { holdRequest } from "@trellis/server/testing";
import { describe, expect, it } from "vitest";
import { SqliteAuditStore } from "../audit/sqlite-audit-store.js";
import type { TwiPauseRequest } from "../review-request.js";
import type { AgentState } from "../state.js";
import { apiDoor } from "../test/api-door.js";
import { PALLET_REQUEST } from "../test/test-app.js";

const t = apiDoor("twi-api-double-");
const ASSISTANT = "twi-author";
const APPROVE = { assistant_id: ASSISTANT, command: { resume: { decisions: [{ type: "approve" }] } } };

const client = () => new Client({ apiUrl: t.door.url, apiKey: null });

async function paused(threadId: string): Promise<Array<{ id: string; value: TwiPauseRequest }>> {
  const state = await client().threads.getState(threadId);
  return state.tasks.flatMap((task) =>
    task.interrupts.map((i) => ({ id: i.id as string, value: i.value as TwiPauseRequest })),
  );
}

async function values(threadId: string): Promise<AgentState> {
  return (await client().threads.getState(threadId)).values as unknown as AgentState;
}

async function audited(threadId: string): Promise<boolean> {
  const audit = new SqliteAuditStore({ filename: join(t.dataDir, "audit.sqlite") });
  try {
    return (await audit.list()).some((r) => r.conversation_id === threadId);
  } finally {
    await audit.close();
  }
}

async function atReview(): Promise<string> {
  const c = client();
  const { thread_id } = await c.threads.create();
  await c.runs.wait(thread_id, ASSISTANT, {
    input: { user_id: "u1", tenant_id: "acme", channel: "cli", message: PALLET_REQUEST },
  });
  expect((await paused(thread_id))[0]?.value.pause).toBe("review");
  return thread_id;
}

/** After the double submission: waiting at the final approval, nothing published, signed off or audited. */
async function expectFinalApprovalPending(threadId: string): Promise<string> {
  const [final] = await paused(threadId);
  expect(final?.value.pause).toBe("approve");
  const state = await values(threadId);
  expect(state.status).not.toBe("completed");
  expect(state.pdf_url).toBeNull();
  expect(state.approval_timestamp).toBeNull();
  expect(await audited(threadId)).toBe(false);
  return final?.id as string;
}

describe("an identical approval sent twice at the review (issue 33)", () => {
  it("the copy read after the first reached the final approval is refused, naming it; nothing is published", async () => {
    const threadId = await atReview();
    const path = `/threads/${threadId}/runs`;
    const [first, second] = await Promise.all([
      holdRequest(t.door.url, path, APPROVE),
      holdRequest(t.door.url, path, APPROVE),
    ]);
    const accepted = await first.send();
    expect(accepted.status).toBe(200);
    await client().runs.join(threadId, accepted.json.run_id as string);
    const finalId = (await paused(threadId))[0]?.id as string;

    const late = await second.send();
    expect(late.status).toBe(409);
    expect(late.json.error).toBe("RESUME_MISMATCH");
    expect((late.json.details as { pending: string[] }).pending).toEqual([finalId]);
    expect(await expectFinalApprovalPending(threadId)).toBe(finalId);

    // the sign-off, given by its id, publishes
    await client().runs.wait(threadId, ASSISTANT, {
      command: { resume: { [finalId]: { decisions: [{ type: "approve" }] } } },
    });
    expect((await values(threadId)).status).toBe("completed");
    expect(await audited(threadId)).toBe(true);
  });

  it("both copies read at once: one answers the review, the final approval stays pending", async () => {
    const threadId = await atReview();
    const path = `/threads/${threadId}/runs`;
    const held = await Promise.all([holdRequest(t.door.url, path, APPROVE), holdRequest(t.door.url, path, APPROVE)]);
    const answers = await Promise.all(held.map((h) => h.send()));
    for (const a of answers) if (a.status === 200) await client().runs.join(threadId, a.json.run_id as string);
    for (const a of answers.filter((a) => a.status !== 200)) {
      // refused by the binding, or by the multitask strategy (reject, the default) while the first is queued
      expect(a.status).toBe(409);
      expect(["RESUME_MISMATCH", "CONFLICT"]).toContain(a.json.error);
    }
    await expectFinalApprovalPending(threadId);
  });
});
