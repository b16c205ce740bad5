import { rmSync } from "node:fs";
import { ManualClock } from "@trellis/core";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../test/test-app.js";
import { FsBlobStorage, isValidBlobName } from "./fs-blob-storage.js";
import { DEFAULT_URL_TTL_MS, UrlSigner } from "./url-signer.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function storage(clock = new ManualClock(Date.UTC(2025, 0, 1))) {
  const dir = tempDir();
  dirs.push(dir);
  const signer = new UrlSigner({ secret: "0123456789abcdef-secret", clock });
  return { clock, signer, blobs: new FsBlobStorage({ dir, baseUrl: "http://h/apps/twi-author/", signer }) };
}

describe("FsBlobStorage and UrlSigner", () => {
  it("upload stores the bytes and returns a link signed for 24 hours", async () => {
    const { blobs, signer } = storage();
    const url = new URL(await blobs.upload(new Uint8Array([37, 80, 68, 70]), "acme/c1/twi-r0.pdf"));
    expect(url.pathname).toBe("/apps/twi-author/blobs/acme/c1/twi-r0.pdf");
    expect(Number(url.searchParams.get("expires"))).toBe((Date.UTC(2025, 0, 1) + DEFAULT_URL_TTL_MS) / 1000);
    expect(
      signer.verify("acme/c1/twi-r0.pdf", url.searchParams.get("expires") ?? "", url.searchParams.get("sig") ?? ""),
    ).toEqual({ ok: true });
    expect(await blobs.read("acme/c1/twi-r0.pdf")).toEqual({
      bytes: new Uint8Array([37, 80, 68, 70]),
      contentType: "application/pdf",
    });
    expect(await blobs.read("acme/missing.pdf")).toBeUndefined();
  });

  it("refuses an expired link, another blob's signature and tampered values", async () => {
    const { blobs, signer, clock } = storage();
    const url = new URL(await blobs.upload(new Uint8Array([1]), "a/b.pdf"));
    const expires = url.searchParams.get("expires") ?? "";
    const sig = url.searchParams.get("sig") ?? "";
    expect(signer.verify("a/c.pdf", expires, sig)).toEqual({ ok: false, reason: "bad-signature" });
    expect(signer.verify("a/b.pdf", String(Number(expires) + 3600), sig)).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    expect(signer.verify("a/b.pdf", expires, `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`)).toEqual({
      ok: false,
      reason: "bad-signature",
    });
    expect(signer.verify("a/b.pdf", expires, undefined)).toEqual({ ok: false, reason: "malformed" });
    await clock.advance(DEFAULT_URL_TTL_MS - 1000);
    expect(signer.verify("a/b.pdf", expires, sig)).toEqual({ ok: true });
    await clock.advance(1000);
    expect(signer.verify("a/b.pdf", expires, sig)).toEqual({ ok: false, reason: "expired" });
  });

  it("keeps blob names inside the directory", async () => {
    const { blobs } = storage();
    for (const bad of ["../x.pdf", "a/../../x.pdf", "/etc/passwd", "a//b", "a/b.pdf.meta.json", ""]) {
      expect(isValidBlobName(bad)).toBe(false);
      await expect(blobs.upload(new Uint8Array([1]), bad)).rejects.toThrow(/Invalid blob name/);
      expect(await blobs.read(bad)).toBeUndefined();
    }
  });
});
