/**
 * Issue 33, findings 2 and 3, for twi-author over the Agent Server API with the server's auth on: the
 * PDF and the audit row name the authenticated user (`ctx.user`), not a `user_id` the client put in
 * its input; and a conversation's PDFs go with its thread — after `DELETE /threads/{id}` the signed
 * link serves nothing, and another user's thread with the same id finds none of them.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SqliteAuditStore } from "../audit/sqlite-audit-store.js";
import { extractPdfText } from "../test/pdf-text.js";
import { PALLET_REQUEST } from "../test/test-app.js";
import { type DoorServer, startDoorServer } from "../test/webhook-door.js";

const dataDir = mkdtempSync(join(tmpdir(), "twi-api-owner-"));
let door: DoorServer;
beforeAll(async () => {
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "twi-api-owner-secret-0123456789");
  for (const name of [
    "TWI_AUDIT_DATABASE_URL",
    "TWI_PUBLIC_BASE_URL",
    "TWI_MODEL_PROVIDER",
    "TRELLIS_MODEL_PROVIDER",
    "TWI_BLOB_DIR",
  ]) {
    vi.stubEnv(name, "");
  }
  door = await startDoorServer({
    auth: {
      enabled: true,
      credentials: [
        { user: "alice", apiKey: "key-alice" },
        { user: "bob", apiKey: "key-bob" },
      ],
    },
  });
});
afterAll(async () => {
  await door?.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

type Values = { pdf_url: string | null; pdf_blob_name: string | null; status: string };

async function fetchPdf(signedUrl: string): Promise<{ status: number; text: string }> {
  const url = new URL(signedUrl);
  const res = await fetch(`${door.url}${url.pathname}${url.search}`);
  if (res.status !== 200) return { status: res.status, text: "" };
  return { status: 200, text: await extractPdfText(new Uint8Array(await res.arrayBuffer())) };
}

describe("the conversation's user is the authenticated one, and its PDFs go with its thread", () => {
  it("alice's PDF and audit row name alice whatever user_id she sends; deleting the thread deletes the PDF", async () => {
    const alice = new Client({ apiUrl: door.url, apiKey: "key-alice" });
    const bob = new Client({ apiUrl: door.url, apiKey: "key-bob" });
    const thread = await alice.threads.create();
    const T = thread.thread_id;
    // the input names bob as the user: the server's authenticated user wins
    await alice.runs.wait(T, "twi-author", {
      input: { user_id: "bob", tenant_id: "acme", channel: "cli", message: PALLET_REQUEST },
    });
    await alice.runs.wait(T, "twi-author", { command: { update: { status: "approved" } } });
    await alice.runs.wait(T, "twi-author", {
      command: { update: { status: "approved", approval_timestamp: "2026-01-02T10:00:00.000Z" } },
    });
    const values = (await alice.threads.getState(T)).values as Values;
    expect(values.status).toBe("completed");
    const pdf = await fetchPdf(values.pdf_url ?? "");
    expect(pdf.status).toBe(200);
    expect(pdf.text).toContain("alice");
    expect(pdf.text).not.toMatch(/\bbob\b/);
    const audit = new SqliteAuditStore({ filename: join(dataDir, "audit.sqlite") });
    try {
      expect((await audit.get(T))?.user_id).toBe("alice");
    } finally {
      await audit.close();
    }

    const folder = join(dataDir, "blobs", "acme", T);
    expect(existsSync(folder)).toBe(true);
    await alice.threads.delete(T);
    expect(existsSync(folder)).toBe(false);
    expect((await fetchPdf(values.pdf_url ?? "")).status).toBe(404);
    await bob.threads.create({ threadId: T });
    expect((await fetchPdf(values.pdf_url ?? "")).status).toBe(404);
  });
});
