import { APICallError, JSONParseError, LoadAPIKeyError } from "ai";
import { describe, expect, it } from "vitest";
import { ModelError, parseRetryAfter, toModelError } from "./model-errors.js";
import { retryDelay } from "./retry.js";

const ctx = { provider: "openai", model: "gpt-test", now: Date.parse("2026-01-01T00:00:00Z") };

function apiError(statusCode: number | undefined, responseHeaders: Record<string, string> = {}, isRetryable = false) {
  return new APICallError({
    message: "failed",
    url: "http://x",
    requestBodyValues: {},
    ...(statusCode === undefined ? {} : { statusCode }),
    responseHeaders,
    isRetryable,
  });
}

describe("parseRetryAfter", () => {
  it("reads milliseconds, seconds and HTTP dates, case-insensitively", () => {
    expect(parseRetryAfter({ "Retry-After-Ms": "150" }, ctx.now)).toBe(150);
    expect(parseRetryAfter({ "retry-after": "2.5" }, ctx.now)).toBe(2500);
    expect(parseRetryAfter({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }, ctx.now)).toBe(30_000);
    expect(parseRetryAfter({ "retry-after": "Wed, 31 Dec 2025 00:00:00 GMT" }, ctx.now)).toBe(0);
  });

  it("returns undefined when there is nothing usable", () => {
    expect(parseRetryAfter(undefined, ctx.now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "soon" }, ctx.now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after-ms": "-3" }, ctx.now)).toBeUndefined();
  });
});

describe("toModelError", () => {
  it.each([
    [401, "MODEL_AUTH", false],
    [403, "MODEL_AUTH", false],
    [404, "MODEL_REQUEST_REJECTED", false],
    [408, "MODEL_TIMEOUT", true],
    [429, "MODEL_RATE_LIMITED", true],
    [500, "MODEL_UNAVAILABLE", true],
    [529, "MODEL_UNAVAILABLE", true],
    [200, "MODEL_BAD_RESPONSE", false],
  ] as const)("maps HTTP %i to %s (retryable: %s)", (status, code, retryable) => {
    const error = toModelError(apiError(status), ctx);
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.details.status).toBe(status);
  });

  it("maps a connection failure by the SDK's retryable flag", () => {
    expect(toModelError(apiError(undefined, {}, true), ctx)).toMatchObject({
      code: "MODEL_UNAVAILABLE",
      retryable: true,
    });
  });

  it("maps a missing key, unreadable JSON and a timeout", () => {
    expect(toModelError(new LoadAPIKeyError({ message: "no key" }), ctx).code).toBe("MODEL_AUTH");
    expect(toModelError(new JSONParseError({ text: "{", cause: new Error("x") }), ctx).code).toBe("MODEL_BAD_RESPONSE");
    expect(toModelError(new Error("aborted"), { ...ctx, timedOutAfterMs: 10 }).code).toBe("MODEL_TIMEOUT");
  });

  it("keeps the original error as the cause and passes ModelErrors through", () => {
    const original = apiError(500);
    const mapped = toModelError(original, ctx);
    expect(mapped.cause).toBe(original);
    expect(toModelError(mapped, ctx)).toBe(mapped);
    expect(mapped.name).toBe("ModelError");
  });
});

describe("retryDelay", () => {
  const unavailable = new ModelError("MODEL_UNAVAILABLE", "x", { details: { provider: "p", model: "m" } });
  it("doubles from initialDelayMs up to maxDelayMs and stops after maxRetries", () => {
    const options = { maxRetries: 5, initialDelayMs: 100, maxDelayMs: 500 };
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelay(unavailable, n, options))).toEqual([
      100,
      200,
      400,
      500,
      500,
      undefined,
    ]);
  });

  it("never retries a non-retryable error", () => {
    const auth = new ModelError("MODEL_AUTH", "x", { details: { provider: "p", model: "m" } });
    expect(retryDelay(auth, 0, {})).toBeUndefined();
  });
});
