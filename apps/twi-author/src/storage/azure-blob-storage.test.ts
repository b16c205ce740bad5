/**
 * Issue 35, twi-author finding 7: Azure Blob Storage as a configurable store (`TWI_BLOB_STORE=azure`),
 * tested against Azurite (the Azure Storage emulator from npm, started here on a loopback port, in
 * memory). A conversation published through the Agent Server API lands in the container, and its
 * `pdf_url` is a real SAS link (read only, 24 hours) that the storage service serves; an altered or
 * expired link is refused by the service. The filesystem store stays the default.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTwiConfig } from "../config.js";
import type { AgentState } from "../state.js";
import { apiDoor } from "../test/api-door.js";
import { type Azurite, startAzurite } from "../test/azurite.js";
import { extractPdfText } from "../test/pdf-text.js";
import { PALLET_REQUEST } from "../test/test-app.js";
import { AzureBlobStorage } from "./azure-blob-storage.js";

let azurite: Azurite | undefined;
beforeAll(async () => {
  azurite = await startAzurite();
});
afterAll(async () => {
  await azurite?.stop();
});

const CONTAINER = "twi-test-documents";
const t = apiDoor("twi-azure-", () => ({
  TWI_BLOB_STORE: "azure",
  TWI_AZURE_STORAGE_CONNECTION_STRING: azurite?.connectionString ?? "",
  TWI_AZURE_STORAGE_CONTAINER: CONTAINER,
}));

async function run(threadId: string, body: Record<string, unknown>): Promise<AgentState> {
  const res = await t.api(`/threads/${threadId}/runs/wait`, { assistant_id: "twi-author", ...body });
  expect(res.status).toBe(200);
  return res.json as unknown as AgentState;
}

describe("TWI_BLOB_STORE=azure, against Azurite", () => {
  it("a published PDF is in the container behind a 24-hour read-only SAS link the service serves", async () => {
    const threadId = String((await t.api("/threads", {})).json.thread_id);
    await run(threadId, { input: { user_id: "u", tenant_id: "acme", channel: "cli", message: PALLET_REQUEST } });
    await run(threadId, { command: { update: { status: "approved" } } });
    const done = await run(threadId, {
      command: { update: { status: "approved", approval_timestamp: "2026-11-28T12:00:00.000Z" } },
    });
    expect(done.status).toBe("completed");
    const url = new URL(String(done.pdf_url));
    expect(`${url.origin}${url.pathname}`).toBe(`${azurite?.blobEndpoint}/${CONTAINER}/acme/${threadId}/twi-r0.pdf`);
    expect(url.searchParams.get("sp")).toBe("r");
    const starts = Date.parse(String(url.searchParams.get("st")));
    const expires = Date.parse(String(url.searchParams.get("se")));
    // valid 24 hours (the start is set 5 minutes early for clock skew)
    expect(expires - starts).toBe(24 * 3_600_000 + 5 * 60_000);

    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const text = await extractPdfText(new Uint8Array(await res.arrayBuffer()));
    expect(text).toContain("Raklap kézi stretch-fóliázása");

    // the service checks the signature: an altered one is refused
    const sig = String(url.searchParams.get("sig"));
    const forged = new URL(url);
    forged.searchParams.set("sig", `${sig.charAt(0) === "A" ? "B" : "A"}${sig.slice(1)}`);
    expect((await fetch(forged)).status).toBe(403);
    // without the SAS there is no access either
    expect((await fetch(`${url.origin}${url.pathname}`)).status).toBeGreaterThanOrEqual(400);
  });

  it("an expired link is refused by the service; read and deleteFolder work on the container", async () => {
    const connectionString = azurite?.connectionString ?? "";
    const twoDaysAgo = Date.now() - 48 * 3_600_000;
    const old = new AzureBlobStorage({ connectionString, container: CONTAINER, now: () => twoDaysAgo });
    const url = await old.upload(new TextEncoder().encode("%PDF-1.7 old"), "acme/expired/twi-r0.pdf");
    expect((await fetch(url)).status).toBe(403);

    const blobs = new AzureBlobStorage({ connectionString, container: CONTAINER });
    expect(await blobs.read("acme/expired/twi-r0.pdf")).toMatchObject({ contentType: "application/pdf" });
    expect(await blobs.read("acme/none/twi-r0.pdf")).toBeUndefined();
    await blobs.deleteFolder("acme/expired");
    expect(await blobs.read("acme/expired/twi-r0.pdf")).toBeUndefined();
  });

  it("configuration: fs stays the default; azure without a connection string says what to set", () => {
    expect(loadTwiConfig({ TWI_DATA_DIR: "/tmp/twi-config" }).blobStore).toEqual({ kind: "fs" });
    expect(() => loadTwiConfig({ TWI_DATA_DIR: "/tmp/twi-config", TWI_BLOB_STORE: "azure" })).toThrow(
      /TWI_BLOB_STORE=azure needs the storage account's connection string in TWI_AZURE_STORAGE_CONNECTION_STRING/,
    );
    expect(() => loadTwiConfig({ TWI_DATA_DIR: "/tmp/twi-config", TWI_BLOB_STORE: "s3" })).toThrow(
      'TWI_BLOB_STORE must be fs (the default) or azure, got "s3".',
    );
  });
});
