/** How cron schedules are read: 5 fields in UTC, the next tick strictly after a time, clear refusals. */
import { TrellisError } from "@trellis/checkpoint";
import { describe, expect, it } from "vitest";
import { checkSchedule, nextRunAfter } from "../crons/cron-schedule.js";
import { nextTick } from "../crons/cron-scheduler.js";

const next = (schedule: string, after: string) => nextRunAfter(schedule, new Date(after))?.toISOString() ?? null;

describe("cron schedules", () => {
  it("gives the first tick strictly after a time, in UTC", () => {
    expect(next("* * * * *", "2026-01-05T10:00:00.000Z")).toBe("2026-01-05T10:01:00.000Z");
    expect(next("* * * * *", "2026-01-05T10:00:59.999Z")).toBe("2026-01-05T10:01:00.000Z");
    expect(next("*/15 * * * *", "2026-01-05T10:15:00.000Z")).toBe("2026-01-05T10:30:00.000Z");
    expect(next("0 9 * * MON-FRI", "2026-01-09T09:00:00.000Z")).toBe("2026-01-12T09:00:00.000Z"); // Fri → Mon
    expect(next("@daily", "2026-01-05T10:00:00.000Z")).toBe("2026-01-06T00:00:00.000Z");
    expect(next("0 0 29 2 *", "2026-03-01T00:00:00.000Z")).toBe("2028-02-29T00:00:00.000Z");
  });

  it("matches a day of month or a day of week when both are given, as crontab does", () => {
    // the 1st of the month, or any Monday: 2026-01-05 is a Monday, 2026-02-01 a Sunday
    expect(next("0 0 1 * MON", "2026-01-04T12:00:00.000Z")).toBe("2026-01-05T00:00:00.000Z");
    expect(next("0 0 1 * MON", "2026-01-26T12:00:00.000Z")).toBe("2026-02-01T00:00:00.000Z");
  });

  it("refuses anything but a 5-field expression that fires, naming the field and the format", () => {
    for (const bad of ["", "   ", "every minute", "* * * * * *", "* * * *", "61 * * * *", "0 0 30 2 *", 5, null]) {
      let error: unknown;
      try {
        checkSchedule(bad);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TrellisError);
      expect((error as TrellisError).code).toBe("INVALID_ARGUMENT");
      expect((error as TrellisError).message).toMatch(/"schedule"/);
      expect((error as TrellisError).message).toMatch(
        /5-field cron expression "minute hour day-of-month month day-of-week" read in UTC/,
      );
    }
    expect(checkSchedule(" 0 12 * * * ")).toBe("0 12 * * *");
  });

  it("has no next tick past its end time", () => {
    const end = Date.parse("2026-01-05T10:02:30Z");
    expect(nextTick({ schedule: "* * * * *", endTimeMs: end }, Date.parse("2026-01-05T10:01:10Z"))).toBe(
      Date.parse("2026-01-05T10:02:00Z"),
    );
    expect(nextTick({ schedule: "* * * * *", endTimeMs: end }, Date.parse("2026-01-05T10:02:00Z"))).toBeNull();
  });
});
