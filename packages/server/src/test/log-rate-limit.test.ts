/**
 * Lines that a caller can make the server write at will (refused webhooks) are limited per key: at
 * most N a window, the rest summed up in one `log-suppressed` line when the window ends; an app's
 * logger (`ctx.log`) limits its refusal lines (warn with a `reason`) per event and reason.
 */
import { describe, expect, it, vi } from "vitest";
import { APP_REFUSALS_PER_MINUTE, appLogger } from "../operations/app-log.js";
import { rateLimitedLogger } from "../operations/log-rate-limit.js";
import type { LogEntry } from "../operations/worker-log.js";

const refusal = (reason: string): LogEntry => ({ level: "warn", event: "webhook-refused", reason, route: "/hook" });

describe("a rate-limited logger", () => {
  it("writes N lines of a key per window, then one summary of the rest when the window ends; keys are apart", () => {
    const lines: LogEntry[] = [];
    let now = 1_000;
    const log = rateLimitedLogger((e) => lines.push(e), {
      perWindow: 3,
      windowMs: 60_000,
      key: (e) => (e.reason === undefined ? undefined : String(e.reason)),
      now: () => now,
      timers: false,
    });
    for (let i = 0; i < 50; i++) log(refusal("bad-signature"));
    log(refusal("malformed-body"));
    log({ level: "info", event: "webhook-received" });
    expect(lines.map((e) => e.reason ?? e.event)).toEqual([
      "bad-signature",
      "bad-signature",
      "bad-signature",
      "malformed-body",
      "webhook-received",
    ]);
    // the next window: the summary of the last one first, then the line
    now += 60_000;
    log(refusal("bad-signature"));
    expect(lines.slice(5)).toEqual([
      {
        level: "warn",
        event: "log-suppressed",
        suppressed: 47,
        of: "webhook-refused",
        reason: "bad-signature",
        key: "bad-signature",
        windowMs: 60_000,
      },
      refusal("bad-signature"),
    ]);
    // flush: the summary now (nothing to sum up for a key that suppressed nothing)
    for (let i = 0; i < 4; i++) log(refusal("bad-signature"));
    log.flush();
    expect(lines.slice(7).map((e) => [e.event, e.suppressed])).toEqual([
      ["webhook-refused", undefined],
      ["webhook-refused", undefined],
      ["log-suppressed", 2],
    ]);
  });

  it("writes the summary when the window ends even if no line of its key comes after", async () => {
    const lines: LogEntry[] = [];
    const log = rateLimitedLogger((e) => lines.push(e), { perWindow: 1, windowMs: 30, key: () => "k" });
    for (let i = 0; i < 5; i++) log(refusal("bad-signature"));
    expect(lines).toHaveLength(1);
    await vi.waitFor(() => expect(lines.at(-1)).toMatchObject({ event: "log-suppressed", suppressed: 4 }));
  });
});

describe("an app's logger (ctx.log)", () => {
  it("tags lines with the app and limits its refusal lines per event and reason", () => {
    const lines: LogEntry[] = [];
    const log = appLogger("twi-author", (e) => lines.push(e));
    for (let i = 0; i < 100; i++) log(refusal("bad-signature"));
    for (let i = 0; i < 100; i++) log({ level: "info", event: "webhook-received", threadId: `t-${i}` });
    const refused = lines.filter((e) => e.event === "webhook-refused");
    expect(refused).toHaveLength(APP_REFUSALS_PER_MINUTE);
    expect(lines.filter((e) => e.event === "webhook-received")).toHaveLength(100);
    expect(lines.every((e) => e.app === "twi-author")).toBe(true);
  });
});
