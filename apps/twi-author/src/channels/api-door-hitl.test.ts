/**
 * Issue 20 item 4, twi-author: the review and the final approval wait with LangChain's
 * human-in-the-loop request, so the official SDK `Client` (what `useStream` and agent-chat-ui use)
 * answers them with `{ decisions }`: approve, edit (the edited draft is what is approved, published and
 * recorded), reject with a message (a revision request) or without (the end), reject at the final
 * approval (nothing published). A malformed decision asks again with the reason and acts on nothing.
 * The seed's own answer (a state update, then continue) is tested by the other door tests.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { SqliteAuditStore } from "../audit/sqlite-audit-store.js";
import type { TwiPauseRequest } from "../review-request.js";
import type { AgentState } from "../state.js";
import { apiDoor } from "../test/api-door.js";
import { extractPdfText } from "../test/pdf-text.js";
import { PALLET_REQUEST } from "../test/test-app.js";

const t = apiDoor("twi-api-hitl-");
const ASSISTANT = "twi-author";
const ASK_BACK_REQUEST = "Írj TWI-t a festőkabin tisztításáról.";

function client(): Client {
  return new Client({ apiUrl: t.door.url, apiKey: null });
}

async function start(message = PALLET_REQUEST): Promise<string> {
  const c = client();
  const { thread_id } = await c.threads.create();
  await c.runs.wait(thread_id, ASSISTANT, { input: { user_id: "u1", tenant_id: "acme", channel: "cli", message } });
  return thread_id;
}

/** The pending interrupt values, read as a client reads them from the thread's state. */
async function pending(threadId: string): Promise<TwiPauseRequest[]> {
  const state = await client().threads.getState(threadId);
  return state.tasks.flatMap((task) => task.interrupts.map((i) => i.value as TwiPauseRequest));
}

async function values(threadId: string): Promise<AgentState> {
  return (await client().threads.getState(threadId)).values as unknown as AgentState;
}

async function answer(threadId: string, decisions: unknown): Promise<void> {
  await client().runs.wait(threadId, ASSISTANT, { command: { resume: decisions } });
}

async function auditRow(threadId: string) {
  const audit = new SqliteAuditStore({ filename: join(t.dataDir, "audit.sqlite") });
  try {
    return (await audit.list()).find((r) => r.conversation_id === threadId);
  } finally {
    await audit.close();
  }
}

describe("twi-author's pauses in LangChain's HITL shape, answered by the SDK Client", () => {
  it("review and final approval ask about the draft; approve twice publishes it", async () => {
    const threadId = await start();
    const [review] = await pending(threadId);
    const draft = (await values(threadId)).draft;
    expect(review).toMatchObject({ pause: "review", conversation_id: threadId, revision: 0 });
    expect(review?.action_requests).toEqual([
      {
        name: "twi_draft_review",
        args: { draft },
        description: expect.stringMatching(/^A TWI vázlat \(0\. változat\)/),
      },
    ]);
    expect(review?.review_configs).toEqual([
      { action_name: "twi_draft_review", allowed_decisions: ["approve", "edit", "reject"] },
    ]);

    await answer(threadId, { decisions: [{ type: "approve" }] });
    const [final] = await pending(threadId);
    expect(final?.pause).toBe("approve");
    expect(final?.action_requests[0]).toMatchObject({ name: "twi_publish", args: { draft } });
    expect(final?.review_configs[0]?.allowed_decisions).toEqual(["approve", "edit", "reject"]);
    expect((await values(threadId)).pdf_url).toBeNull();

    await answer(threadId, { decisions: [{ type: "approve" }] });
    const done = await values(threadId);
    expect(done).toMatchObject({ status: "completed", draft });
    expect(Number.isNaN(Date.parse(done.approval_timestamp ?? ""))).toBe(false);
    expect(await pending(threadId)).toEqual([]);
    expect(await auditRow(threadId)).toMatchObject({ status: "completed", pdf_blob_name: done.pdf_blob_name });
  });

  it("an edit at the review is the draft approved, published and recorded", async () => {
    const threadId = await start();
    const original = String((await values(threadId)).draft);
    const edited = original.replace(/1\. CÍM\n.*/, "1. CÍM\nRaklap fóliázása kézzel — szerkesztett cím");
    expect(edited).not.toBe(original);
    await answer(threadId, {
      decisions: [{ type: "edit", edited_action: { name: "twi_draft_review", args: { draft: edited } } }],
    });
    const [final] = await pending(threadId);
    expect(final?.pause).toBe("approve");
    // the final approval shows exactly the edited draft
    expect(final?.action_requests[0]?.args).toEqual({ draft: edited });
    await answer(threadId, { decisions: [{ type: "approve" }] });
    const done = await values(threadId);
    expect(done).toMatchObject({ status: "completed", draft: edited });
    const pdf = await extractPdfText(readFileSync(join(t.dataDir, "blobs", String(done.pdf_blob_name))));
    expect(pdf).toContain("szerkesztett cím");
  });

  it("an edit at the final approval goes back to the review; published only after both approvals", async () => {
    const threadId = await start();
    await answer(threadId, { decisions: [{ type: "approve" }] });
    const draft = String((await values(threadId)).draft);
    const edited = draft.replace(/1\. CÍM\n.*/, "1. CÍM\nVégső szerkesztés címe");
    await answer(threadId, {
      decisions: [{ type: "edit", editedAction: { name: "twi_publish", args: { draft: edited } } }],
    });
    // issue 35: an edit at the final pause is a new draft, reviewed again — nothing is published yet
    const [review] = await pending(threadId);
    expect(review?.pause).toBe("review");
    expect(review?.action_requests[0]?.args).toEqual({ draft: edited });
    expect(await values(threadId)).toMatchObject({ status: "review_needed", pdf_url: null });
    await answer(threadId, { decisions: [{ type: "approve" }] });
    await answer(threadId, { decisions: [{ type: "approve" }] });
    const done = await values(threadId);
    expect(done).toMatchObject({ status: "completed", draft: edited });
    const pdf = await extractPdfText(readFileSync(join(t.dataDir, "blobs", String(done.pdf_blob_name))));
    expect(pdf).toContain("Végső szerkesztés címe");
  });

  it("reject with a message at the review requests a revision with it; without one it ends", async () => {
    const threadId = await start();
    await answer(threadId, { decisions: [{ type: "reject", message: "Biztonság: védőszemüveg kötelező" }] });
    const revised = await values(threadId);
    expect(revised).toMatchObject({ revision_count: 1, revision_feedback: "Biztonság: védőszemüveg kötelező" });
    expect(revised.draft).toContain("védőszemüveg kötelező");
    const [again] = await pending(threadId);
    expect(again).toMatchObject({ pause: "review", revision: 1 });

    await answer(threadId, { decisions: [{ type: "reject" }] });
    expect(await values(threadId)).toMatchObject({ status: "rejected", pdf_url: null });
    expect(await pending(threadId)).toEqual([]);
    expect(await auditRow(threadId)).toBeUndefined();
  });

  it("reject at the final approval publishes nothing", async () => {
    const threadId = await start();
    await answer(threadId, { decisions: [{ type: "approve" }] });
    await answer(threadId, { decisions: [{ type: "reject", message: "Mégsem." }] });
    const state = await values(threadId);
    expect(state).toMatchObject({ status: "rejected", pdf_url: null, pdf_blob_name: null });
    expect(await pending(threadId)).toEqual([]);
    expect(existsSync(join(t.dataDir, "blobs", "acme", threadId))).toBe(false);
    expect(await auditRow(threadId)).toBeUndefined();
  });

  it.each([
    ["not { decisions }", "yes", /needs \{ decisions: \[\.\.\.\] \}/],
    ["an unknown type", { decisions: [{ type: "maybe" }] }, /not one of approve, edit, reject/],
    [
      "an edit without a draft",
      { decisions: [{ type: "edit", edited_action: { name: "x", args: {} } }] },
      /edited draft as text/,
    ],
    [
      "an edit that is not an instruction",
      { decisions: [{ type: "edit", edited_action: { name: "x", args: { draft: "csak egy mondat" } } }] },
      /nem hagyható jóvá/,
    ],
  ])("%s asks again with the reason; nothing is acted on", async (_what, decisions, reason) => {
    const threadId = await start();
    const before = await values(threadId);
    await answer(threadId, decisions);
    const [again] = await pending(threadId);
    expect(again?.pause).toBe("review");
    expect(again?.not_a_decision).toMatch(reason);
    const after = await values(threadId);
    expect(after).toMatchObject({ status: "review_needed", draft: before.draft, revision_count: 0 });
    // a decision after it still applies
    await answer(threadId, { decisions: [{ type: "approve" }] });
    expect((await pending(threadId))[0]?.pause).toBe("approve");
  });

  it("an ask-back draft cannot be approved: approve asks again; respond answers the questions", async () => {
    const threadId = await start(ASK_BACK_REQUEST);
    const [review] = await pending(threadId);
    expect(review?.review_configs[0]?.allowed_decisions).toEqual(["edit", "reject", "respond"]);
    await answer(threadId, { decisions: [{ type: "approve" }] });
    const [again] = await pending(threadId);
    expect(again?.not_a_decision).toMatch(/not one of edit, reject, respond/);
    expect((await values(threadId)).status).toBe("review_needed");
    await answer(threadId, {
      decisions: [{ type: "respond", message: "Lépések: 1. Kapcsolja ki a kabint 2. Törölje le a falakat" }],
    });
    const revised = await values(threadId);
    expect(revised.revision_count).toBe(1);
    expect(revised.draft).toContain("Kapcsolja ki a kabint");
  });
});
