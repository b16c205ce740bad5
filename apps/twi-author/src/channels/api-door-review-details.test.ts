/**
 * Issue 22, twi-author finding 6, through the Agent Server API: a revision that adds a step with
 * `Új lépés:` marks its missing key point and reason `[KIEGÉSZÍTENDŐ]` instead of leaving them empty;
 * a final approval whose time is not a date is refused with a message that says so (not `found
 * "approved"`), and one without a time is no final approval: the pause asks again (its HITL request)
 * and nothing is published; the conversation stays at the final approval and a proper one publishes.
 */
import { describe, expect, it } from "vitest";
import { apiDoor } from "../test/api-door.js";
import { PALLET_REQUEST } from "../test/test-app.js";
import { parseTwiText } from "../twi-document.js";

const t = apiDoor("twi-review-details-");

/** A call that must succeed: its JSON answer. */
async function api(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await t.api(path, body);
  expect(res.status).toBe(200);
  return res.json;
}

describe("review details", () => {
  it("Új lépés: the new step's key point and reason are marked [KIEGÉSZÍTENDŐ]; a final approval without a valid time publishes nothing", async () => {
    const threadId = String((await api("/threads", {})).thread_id);
    const run = (body: Record<string, unknown>) =>
      api(`/threads/${threadId}/runs/wait`, { assistant_id: "twi-author", ...body });
    await run({ input: { user_id: "u", tenant_id: "acme", channel: "cli", message: PALLET_REQUEST } });
    const revised = await run({
      command: {
        update: { status: "revision_requested", revision_feedback: "Új lépés: Takarítsa le a munkaasztalt." },
      },
    });
    const doc = parseTwiText(String(revised.draft));
    expect(doc?.steps.at(-1)).toEqual({
      action: "Takarítsa le a munkaasztalt.",
      keyPoints: ["[KIEGÉSZÍTENDŐ] kulcspont (a kérés nem adta meg)"],
      rationale: "[KIEGÉSZÍTENDŐ] indoklás (a kérés nem adta meg)",
    });

    // issue 35: a draft with gaps left cannot go to the final approval: the review asks again, naming where
    const blocked = await run({ command: { update: { status: "approved" } } });
    const n = doc?.steps.length ?? 0;
    expect((blocked.__interrupt__ as Array<{ value: { pause: string } }>)[0]?.value.pause).toBe("review");
    expect(String((blocked.messages as Array<{ content: string }>).at(-1)?.content)).toContain(
      `kitöltendő hely ([KIEGÉSZÍTENDŐ]) maradt benne itt: 5. LÉPÉSEK / ${n}. lépés`,
    );
    await run({
      command: {
        update: {
          status: "revision_requested",
          revision_feedback: `${n}. lépés kulcspont: a polcot is törölje le\n${n}. lépés indoklás: a por rátapad a fóliára`,
        },
      },
    });
    await run({ command: { update: { status: "approved" } } });
    // no time: not a final approval — the pause asks again, nothing is published
    const asked = await run({ command: { update: { status: "approved" } } });
    expect(asked.pdf_url).toBeNull();
    expect((asked.__interrupt__ as Array<{ value: { pause: string } }>)[0]?.value.pause).toBe("approve");
    expect((await t.door.thread(threadId)).next).toEqual(["approve"]);
    const refused = await run({ command: { update: { status: "approved", approval_timestamp: "yesterday" } } });
    expect((refused.__error__ as { message: string }).message).toBe(
      'The final approval needs the time the person approved: found status "approved" with approval_timestamp "yesterday", which is not a date. Resume with { status: "approved", approval_timestamp: "<ISO 8601 time>" }.',
    );
    expect((await t.door.thread(threadId)).next).toEqual(["approve"]);
    const done = await run({
      command: { update: { status: "approved", approval_timestamp: "2026-01-02T10:00:00.000Z" } },
    });
    expect(done).toMatchObject({ status: "completed", approval_timestamp: "2026-01-02T10:00:00.000Z" });
  });
});
