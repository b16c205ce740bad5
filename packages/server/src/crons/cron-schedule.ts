import { TrellisError } from "@trellis/checkpoint";
import { Cron } from "croner";

/** What a schedule must look like, said in every refusal. */
const EXPECTED =
  'a 5-field cron expression "minute hour day-of-month month day-of-week" read in UTC (or in "timezone"), such as "*/5 * * * *" or "0 9 * * MON-FRI"';

function parse(schedule: string, timezone: string | null = null): Cron {
  // paused: croner computes dates only and never starts a timer of its own
  return new Cron(schedule, { mode: "5-part", timezone: timezone ?? "UTC", paused: true });
}

/**
 * Checks an IANA time zone name (`"Europe/Amsterdam"`, `"America/New_York"`, `"UTC"`); null/undefined
 * stays null (the schedule is read in UTC). Anything else is a 400 naming `timezone`.
 *
 * @example
 * checkTimezone("Europe/Amsterdam"); // "Europe/Amsterdam"
 */
export function checkTimezone(timezone: unknown): string | null {
  if (timezone === undefined || timezone === null) return null;
  try {
    if (typeof timezone !== "string" || timezone === "") throw new RangeError("not a name");
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return timezone;
  } catch {
    throw new TrellisError(
      "INVALID_ARGUMENT",
      `"timezone" ${JSON.stringify(timezone)} is not an IANA time zone: give one such as "Europe/Amsterdam" or "UTC", or leave it out for UTC.`,
      { details: { field: "timezone" } },
    );
  }
}

/**
 * Checks a cron schedule as the Agent Server reads it: five fields (minute, hour, day of month, month,
 * day of week), in UTC; lists, ranges, steps and names (`JAN`, `MON`) as in crontab, and `@daily`-style
 * nicknames. A day of month and a day of week both given match either (as Vixie cron). Anything else, or
 * a schedule that never fires (`0 0 30 2 *`), is a 400 naming `field` and the expected format.
 *
 * @example
 * checkSchedule("*\/10 * * * *"); // ok
 * checkSchedule("every minute"); // throws INVALID_ARGUMENT: "schedule" must be a 5-field cron expression …
 */
export function checkSchedule(schedule: unknown, field = "schedule"): string {
  if (typeof schedule !== "string" || schedule.trim() === "") {
    throw new TrellisError("INVALID_ARGUMENT", `"${field}" is required: ${EXPECTED}.`);
  }
  // one line of printable characters: a newline or other control character would pass the parser's
  // whitespace split and reach logs and listings as more than one line
  const control = [...schedule].some((ch) => (ch.codePointAt(0) as number) < 0x20 || ch === "\u007f");
  if (control || schedule.length > 200) {
    throw new TrellisError(
      "INVALID_ARGUMENT",
      `"${field}" ${JSON.stringify(schedule.slice(0, 200))} must be one line of at most 200 characters with fields separated by spaces (no newline or tab): ${EXPECTED}.`,
      { details: { field } },
    );
  }
  let cron: Cron;
  try {
    cron = parse(schedule.trim());
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^CronPattern: /, "") : String(error);
    throw new TrellisError("INVALID_ARGUMENT", `"${field}" ${JSON.stringify(schedule)} is not ${EXPECTED} (${why}).`, {
      details: { field, schedule },
    });
  }
  if (!cron.nextRun(new Date(0))) {
    throw new TrellisError(
      "INVALID_ARGUMENT",
      `"${field}" ${JSON.stringify(schedule)} never fires: give ${EXPECTED} that matches a real date.`,
      { details: { field, schedule } },
    );
  }
  return schedule.trim();
}

/**
 * The first time strictly after `after` that `schedule` fires (read in `timezone`, UTC by default;
 * whole minutes), or null when it never fires again.
 *
 * @example
 * nextRunAfter("0 * * * *", new Date("2026-01-01T10:15:00Z")); // 2026-01-01T11:00:00.000Z
 */
export function nextRunAfter(schedule: string, after: Date, timezone: string | null = null): Date | null {
  return parse(schedule, timezone).nextRun(after);
}
