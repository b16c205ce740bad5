import { describeNonPlainData, nulAt, TrellisError } from "@trellis/checkpoint";
import type { Context } from "hono";

/**
 * Reads a JSON object body; an empty body is `{}`. Anything else (bad JSON, an array, a string) is a
 * 400 INVALID_ARGUMENT.
 *
 * @example
 * const body = await readBody(c);
 */
export async function readBody(c: Context): Promise<Record<string, unknown>> {
  return parseBody(await c.req.text());
}

/**
 * The bounds of request fields that reach SQL as more than one value: a filter object becomes one
 * condition per key, a list one parameter per item. Past them a database refuses the statement
 * (SQLite's expression depth and variable count, Postgres's parameter count), so they are a 400 here.
 *
 * @example
 * REQUEST_BOUNDS.filterKeys; // 100
 */
export const REQUEST_BOUNDS = { filterKeys: 100, listItems: 1000 } as const;

/**
 * Reads a JSON object body ({@link readBody}) whose content is stored or searched in SQL (thread and
 * assistant metadata, crons, store items): a NUL character (U+0000) anywhere in it — Postgres text and
 * jsonb cannot hold one — is a 400 naming where, on every storage alike.
 *
 * @example
 * const body = await readStoredBody(c);
 */
export async function readStoredBody(c: Context): Promise<Record<string, unknown>> {
  const body = await readBody(c);
  checkStorable(body, "The request body");
  return body;
}

/**
 * Throws a 400 when `value` holds a NUL character (U+0000) in a key or a string: what reaches SQL text
 * must not. `what` names the value in the message.
 *
 * @example
 * checkStorable(c.req.query("key"), '"key"');
 */
export function checkStorable(value: unknown, what: string): void {
  const at = nulAt(value, "");
  if (at === undefined) return;
  const where = at === "" ? what : `${what} at ${at.replace(/^\./, "")}`;
  throw invalid(`${where} holds the NUL character (\\u0000), which the database cannot store: remove it.`);
}

/**
 * Parses a request body (HTTP or WebSocket message) the way {@link readBody} does. JSON that is not
 * plain data — nested deeper than state may be, or numbers too large to be finite (`1e999`) — is a 400
 * NOT_PLAIN_DATA here, before anything walks or stores it.
 *
 * @example
 * const body = parseBody('{"input":{"topic":"tides"}}');
 */
export function parseBody(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  const value = parseJsonBody(text, "");
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid("The request body must be a JSON object.");
  }
  return value as Record<string, unknown>;
}

/**
 * The JSON of a request body of any shape, plain data only: invalid JSON is a 400 INVALID_ARGUMENT
 * (with `hint` after the message), data that is not plain a 400 NOT_PLAIN_DATA naming where.
 *
 * @example
 * const runs = parseJsonBody('[{"assistant_id":"agent"}]', "Send an array of run payloads.");
 */
export function parseJsonBody(text: string, hint: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(`The request body is not valid JSON.${hint ? ` ${hint}` : ""}`);
  }
  const bad = describeNonPlainData(value);
  if (bad) {
    const at = bad.path.length > 60 ? `${bad.path.slice(0, 60)}…` : bad.path || "its top";
    throw new TrellisError("NOT_PLAIN_DATA", `The request body holds ${bad.reason} at ${at}.`, { details: bad });
  }
  return value;
}

/**
 * A 400 INVALID_ARGUMENT error.
 *
 * @example
 * throw invalid("limit must be a positive integer.");
 */
export function invalid(message: string): TrellisError {
  return new TrellisError("INVALID_ARGUMENT", message);
}

/** Typed readers of body fields: each returns undefined for a missing or null field, or throws a 400. */
export const field = {
  string(body: Record<string, unknown>, key: string): string | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") throw invalid(`"${key}" must be a string.`);
    return v;
  },
  object(body: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "object" || Array.isArray(v)) throw invalid(`"${key}" must be an object.`);
    return v as Record<string, unknown>;
  },
  /** A filter object (`metadata` of a search, say): at most {@link REQUEST_BOUNDS}`.filterKeys` keys. */
  filter(body: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
    const v = field.object(body, key);
    const n = v === undefined ? 0 : Object.keys(v).length;
    if (n > REQUEST_BOUNDS.filterKeys) {
      throw invalid(
        `"${key}" has ${n} keys; a filter may have at most ${REQUEST_BOUNDS.filterKeys}: keep the ones that narrow most.`,
      );
    }
    return v;
  },
  boolean(body: Record<string, unknown>, key: string): boolean | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "boolean") throw invalid(`"${key}" must be true or false.`);
    return v;
  },
  int(body: Record<string, unknown>, key: string, range: { min: number; max: number }): number | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < range.min || v > range.max) {
      throw invalid(`"${key}" must be an integer from ${range.min} to ${range.max}.`);
    }
    return v;
  },
  stringList(body: Record<string, unknown>, key: string): string[] | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    const list = typeof v === "string" ? [v] : v;
    if (!Array.isArray(list) || list.some((x) => typeof x !== "string")) {
      throw invalid(`"${key}" must be a string or a list of strings.`);
    }
    if (list.length > REQUEST_BOUNDS.listItems) {
      throw invalid(
        `"${key}" has ${list.length} items; send at most ${REQUEST_BOUNDS.listItems} per request (split the list).`,
      );
    }
    return list as string[];
  },
  oneOf<T extends string>(body: Record<string, unknown>, key: string, allowed: readonly T[]): T | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string" || !allowed.includes(v as T)) {
      throw invalid(`"${key}" must be one of ${allowed.map((a) => `"${a}"`).join(", ")}.`);
    }
    return v as T;
  },
};

/**
 * Reads an integer query parameter: undefined when absent or empty, else a whole number in `range`
 * (written in plain digits), or a 400 naming the parameter — so no `1e308` or `1.5` reaches SQL.
 *
 * @example
 * const offset = queryInt(c.req.query("offset"), "offset", { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
 */
export function queryInt(
  value: string | undefined,
  key: string,
  range: { min: number; max: number },
): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = /^-?\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw invalid(`The "${key}" query parameter must be a whole number from ${range.min} to ${range.max}.`);
  }
  return n;
}

/**
 * Checks an id taken from a URL or body: 1–200 characters of letters, digits and `-_.:`.
 *
 * @example
 * checkId(c.req.param("thread_id"), "thread_id");
 */
export function checkId(id: string, what: string): string {
  if (!/^[A-Za-z0-9_.:-]{1,200}$/.test(id)) throw invalid(`${what} must be 1-200 letters, digits or -_.: characters.`);
  return id;
}
