import { afterEach, describe, expect, it, vi } from "vitest";
import { requireService } from "./require-service.js";

describe("requireService", () => {
  afterEach(() => vi.restoreAllMocks());

  it("resolves true when the probe succeeds", async () => {
    expect(await requireService("db", async () => 1, { env: { CI: "true" } })).toBe(true);
  });

  it("outside CI, warns loudly and resolves false so tests skip", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const ok = await requireService("PostgreSQL", () => Promise.reject(new Error("ECONNREFUSED")), {
      env: {},
      hint: "start it",
    });
    expect(ok).toBe(false);
    expect(warn).toHaveBeenCalledOnce();
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/SKIPPING PostgreSQL tests: .*ECONNREFUSED.*start it/);
  });

  it("under CI=true (or 1), fails instead of skipping", async () => {
    for (const CI of ["true", "1"]) {
      await expect(requireService("Redis", () => Promise.reject(new Error("down")), { env: { CI } })).rejects.toThrow(
        /Redis is not reachable \(down\).*must not be skipped/,
      );
    }
  });

  it("treats a probe that never answers as unreachable", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const ok = await requireService("slow", () => new Promise(() => {}), { env: {}, timeoutMs: 20 });
    expect(ok).toBe(false);
  });
});
