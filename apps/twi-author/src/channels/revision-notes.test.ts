/**
 * Issue 22, twi-author finding 2, through the Agent Server API: each revision's note names its own
 * number — "(1. revízió)", "(2. revízió)", … — in the drafts, instead of every note reading "(1.
 * revízió)". Issue 35: each note says where the change landed, and the notes (the reviewer log) are not
 * printed in the approved PDF.
 */
import { describe, expect, it } from "vitest";
import { apiDoor } from "../test/api-door.js";
import { extractPdfText } from "../test/pdf-text.js";
import { PALLET_REQUEST } from "../test/test-app.js";

const t = apiDoor("twi-revision-notes-");

/** A call that must succeed: its JSON answer. */
async function api(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await t.api(path, body);
  expect(res.status).toBe(200);
  return res.json;
}

describe("revision notes", () => {
  it("two revisions over the API: the notes read 1. and 2. revízió in the draft; the PDF holds the changes, not the log", async () => {
    const threadId = String((await api("/threads", {})).thread_id);
    const run = (body: Record<string, unknown>) =>
      api(`/threads/${threadId}/runs/wait`, { assistant_id: "twi-author", ...body });
    await run({ input: { user_id: "u", tenant_id: "acme", channel: "cli", message: PALLET_REQUEST } });
    await run({
      command: { update: { status: "revision_requested", revision_feedback: "Biztonság: Sisak viselése kötelező" } },
    });
    await run({ command: { update: { status: "revision_requested", revision_feedback: "Eszköz: Vágókés" } } });
    const draft = String(((await api(`/threads/${threadId}/state`)).values as { draft: string }).draft);
    expect(draft).toContain(
      "Felülvizsgálói kérés (1. revízió) beépítve: „Biztonság: Sisak viselése kötelező” → 4. BIZTONSÁGI ELŐÍRÁSOK",
    );
    expect(draft).toContain(
      "Felülvizsgálói kérés (2. revízió) beépítve: „Eszköz: Vágókés” → 3. SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK",
    );

    await run({ command: { update: { status: "approved" } } });
    const done = await run({
      command: { update: { status: "approved", approval_timestamp: "2026-01-02T10:00:00.000Z" } },
    });
    const url = new URL(String(done.pdf_url));
    const pdf = await fetch(`${t.door.url}${url.pathname}${url.search}`);
    expect(pdf.status).toBe(200);
    const text = await extractPdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(text).toContain("Sisak viselése kötelező");
    expect(text).toContain("Vágókés");
    expect(text).not.toContain("revízió) beépítve");
    expect(done.pdf_blob_name).toBe(`acme/${threadId}/twi-r2.pdf`);
  });
});
