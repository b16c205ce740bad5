import { describe, expect, it } from "vitest";
import { isTrellisErrorCode, TRELLIS_ERROR_CODES, TrellisError } from "./index.js";

class LeaseLikeError extends TrellisError {}

describe("TrellisError", () => {
  it("instanceof holds across copies of the package (a registry-symbol brand, not the prototype)", () => {
    // what a second copy of @trellis/common makes: an error branded with the same registry symbol
    const fromOtherCopy = Object.defineProperty(new Error("busy"), Symbol.for("@trellis/common/TrellisError"), {
      value: true,
    });
    expect(fromOtherCopy instanceof TrellisError).toBe(true);
    expect(new Error("plain") instanceof TrellisError).toBe(false);
    expect((null as unknown as object) instanceof TrellisError).toBe(false);
  });

  it("subclasses keep the ordinary check", () => {
    const lease = new LeaseLikeError("THREAD_BUSY", "busy");
    expect(lease instanceof LeaseLikeError).toBe(true);
    expect(lease instanceof TrellisError).toBe(true);
    expect(new TrellisError("THREAD_BUSY", "busy") instanceof LeaseLikeError).toBe(false);
    expect(lease.name).toBe("LeaseLikeError");
  });

  it("every code is listed as data", () => {
    expect(TRELLIS_ERROR_CODES).toContain("RUN_TIMEOUT");
    expect(isTrellisErrorCode("RUN_ROLLED_BACK")).toBe(true);
    expect(isTrellisErrorCode("TypeError")).toBe(false);
    expect(isTrellisErrorCode(42)).toBe(false);
  });
});
