/**
 * Issue 22, twi-author finding 2, through the Agent Server API: each revision's note names its own
 * number — "(1. revízió)", "(2. revízió)", … — in the drafts and in the approved PDF, instead of every
 * note reading "(1. revízió)".
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { extractPdfText } from "../test/pdf-text.js";
import { PALLET_REQUEST } from "../test/test-app.js";
import { type DoorServer, startDoorServer } from "../test/webhook-door.js";

const dataDir = mkdtempSync(join(tmpdir(), "twi-revision-notes-"));
let door: DoorServer;

beforeAll(async () => {
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "revision-notes-secret-0123456789");
  for (const name of [
    "TWI_AUDIT_DATABASE_URL",
    "TWI_PUBLIC_BASE_URL",
    "TWI_MODEL_PROVIDER",
    "TRELLIS_MODEL_PROVIDER",
  ]) {
    vi.stubEnv(name, "");
  }
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

async function api(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${door.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("revision notes", () => {
  it("two revisions over the API: the notes read 1. and 2. revízió, in the draft and in the approved PDF", async () => {
    const threadId = String((await api("/threads", {})).thread_id);
    const run = (body: Record<string, unknown>) =>
      api(`/threads/${threadId}/runs/wait`, { assistant_id: "twi-author", ...body });
    await run({ input: { user_id: "u", tenant_id: "acme", channel: "cli", message: PALLET_REQUEST } });
    await run({
      command: { update: { status: "revision_requested", revision_feedback: "Biztonság: Sisak viselése kötelező" } },
    });
    await run({ command: { update: { status: "revision_requested", revision_feedback: "Eszköz: Vágókés" } } });
    const draft = String(((await api(`/threads/${threadId}/state`)).values as { draft: string }).draft);
    expect(draft).toContain("Felülvizsgálói kérés (1. revízió) beépítve: „Biztonság: Sisak viselése kötelező”");
    expect(draft).toContain("Felülvizsgálói kérés (2. revízió) beépítve: „Eszköz: Vágókés”");

    await run({ command: { update: { status: "approved" } } });
    const done = await run({
      command: { update: { status: "approved", approval_timestamp: "2026-01-02T10:00:00.000Z" } },
    });
    const url = new URL(String(done.pdf_url));
    const pdf = await fetch(`${door.url}${url.pathname}${url.search}`);
    expect(pdf.status).toBe(200);
    const text = await extractPdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(text).toContain("(2. revízió)");
    expect(done.pdf_blob_name).toBe(`acme/${threadId}/twi-r2.pdf`);
  });
});
