/**
 * Issue 22, twi-author finding 1, through the Agent Server API: conversations started with
 * `POST /threads/{id}/runs` (assistant `twi-author`) take their identity — conversation id, PDF blob
 * name, audit row, signed link — from the thread, never from the optional `conversation_id` input.
 * Two threads started without one, both approved to the end, leave two PDFs and two audit rows, and
 * each signed link serves its own thread's document; a thread that names another's conversation id
 * cannot overwrite it.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteAuditStore } from "../audit/sqlite-audit-store.js";
import { apiDoor } from "../test/api-door.js";
import { extractPdfText } from "../test/pdf-text.js";
import { PALLET_REQUEST } from "../test/test-app.js";

const t = apiDoor("twi-api-identity-");
const api = (path: string, body?: unknown) => t.api(path, body);

type Values = { conversation_id: string; pdf_url: string | null; pdf_blob_name: string | null; status: string };

/** A conversation over the API: create a thread, start it with `input`, approve the draft, give the final approval. */
async function conversationOverApi(input: Record<string, unknown>): Promise<{ threadId: string; values: Values }> {
  const created = await api("/threads", {});
  expect(created.status).toBe(200);
  const threadId = String(created.json.thread_id);
  const run = (body: Record<string, unknown>) =>
    api(`/threads/${threadId}/runs/wait`, { assistant_id: "twi-author", ...body });
  expect((await run({ input })).status).toBe(200);
  expect((await run({ command: { update: { status: "approved" } } })).status).toBe(200);
  const last = await run({
    command: { update: { status: "approved", approval_timestamp: "2026-01-02T10:00:00.000Z" } },
  });
  expect(last.status).toBe(200);
  const state = await api(`/threads/${threadId}/state`);
  return { threadId, values: state.json.values as Values };
}

async function fetchPdf(signedUrl: string): Promise<{ status: number; text: string }> {
  const url = new URL(signedUrl);
  const res = await fetch(`${t.door.url}${url.pathname}${url.search}`);
  if (res.status !== 200) return { status: res.status, text: "" };
  return { status: 200, text: await extractPdfText(new Uint8Array(await res.arrayBuffer())) };
}

describe("identity comes from the thread (Agent Server API)", () => {
  it("two threads started without a conversation_id, both approved: two PDFs, two audit rows, each link serves its own thread's document", async () => {
    const base = { user_id: "api-user", tenant_id: "acme", channel: "cli" };
    const first = await conversationOverApi({ ...base, message: PALLET_REQUEST });
    const second = await conversationOverApi({
      ...base,
      message: "Write a TWI for measuring a shaft with a caliper",
    });
    // A third thread that names the first thread's conversation id: the input is not its identity.
    const third = await conversationOverApi({ ...base, conversation_id: first.threadId, message: PALLET_REQUEST });

    for (const c of [first, second, third]) {
      expect(c.values.status).toBe("completed");
      expect(c.values.conversation_id).toBe(c.threadId);
      expect(c.values.pdf_blob_name).toBe(`acme/${c.threadId}/twi-r0.pdf`);
    }
    const names = new Set([first, second, third].map((c) => c.values.pdf_blob_name));
    expect(names.size).toBe(3);

    const audit = new SqliteAuditStore({ filename: join(t.dataDir, "audit.sqlite") });
    try {
      const rows = await audit.list();
      expect(rows.map((r) => r.conversation_id).sort()).toEqual(
        [first.threadId, second.threadId, third.threadId].sort(),
      );
      for (const c of [first, second, third]) {
        expect((await audit.get(c.threadId))?.pdf_blob_name).toBe(c.values.pdf_blob_name);
      }
    } finally {
      await audit.close();
    }

    const pdfs = await Promise.all([first, second, third].map((c) => fetchPdf(c.values.pdf_url ?? "")));
    expect(pdfs.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(pdfs[0]?.text).toContain(first.threadId);
    expect(pdfs[0]?.text).toMatch(/fóliáz/i);
    expect(pdfs[1]?.text).toContain(second.threadId);
    expect(pdfs[1]?.text).toMatch(/tolómér|caliper/i);
    expect(pdfs[2]?.text).toContain(third.threadId);
    expect(pdfs[2]?.text).not.toContain(first.threadId);
  });
});
