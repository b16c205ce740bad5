import { digest } from "./digest.js";
import { TrellisError } from "./errors.js";
import { describeNonPlainData, MAX_PLAIN_DATA_DEPTH } from "./plain-data.js";
import { NEEDS_TAGS, NOT_PLAIN, walkPlainData } from "./plain-walk.js";

/**
 * Turns state values into text and back. Savers store what `serialize` returns.
 *
 * @example
 * const plainJson: Serializer = { serialize: (v) => JSON.stringify(v), deserialize: (t) => JSON.parse(t) };
 * const checkpointer = new MemorySaver({ serializer: plainJson });
 */
export interface Serializer {
  serialize(value: unknown): string;
  deserialize(text: string): unknown;
}

const TAG = "$trellis";

/**
 * The default serializer: JSON, with Date, Map, Set, BigInt, Uint8Array, `undefined` and `-0` kept through
 * a small tagged form (`{"$trellis":"Date","v":"…"}`). Plain JSON values cost a single `JSON.stringify`. Objects that
 * happen to own a `$trellis` key are escaped, so any plain value round-trips exactly. Decoding never
 * creates class instances other than those five and never touches a prototype, whatever the text says.
 *
 * @example
 * const text = jsonSerializer.serialize({ at: new Date(0), tags: new Set(["a"]) });
 * jsonSerializer.deserialize(text); // { at: Date(0), tags: Set{"a"} }
 */
export const jsonSerializer: Serializer = {
  serialize(value) {
    // One walk answers both questions: is it plain data, and can JSON alone carry it. Paths for the
    // error are built only when it is not plain.
    const answer = walkPlainData(value, { map: undefined });
    if (answer === NOT_PLAIN) {
      // A getter can answer differently the second time; then the first answer stands.
      const bad = describeNonPlainData(value) ?? { path: "", reason: "not plain data" };
      throw new TrellisError(
        "NOT_PLAIN_DATA",
        `Cannot serialize ${bad.path || "the value"}: it is ${bad.reason}. State must be plain data (JSON, Date, Map, Set, BigInt, Uint8Array).`,
        { details: bad },
      );
    }
    if ((answer & NEEDS_TAGS) === 0) return JSON.stringify(value) ?? "null";
    return JSON.stringify(encode(value));
  },
  deserialize(text) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (cause) {
      throw new TrellisError("SERIALIZATION", `Stored value is not valid JSON: ${(cause as Error).message}`, {
        cause,
      });
    }
    if (text.includes(`"${TAG}"`)) return decode(parsed, 0);
    // Stored text nobody checked (a bug, a hand edit, an attacker) may nest deeper than state may: it
    // would overflow the stack of whatever walks it next. Text this short cannot nest that deep.
    if (
      text.length > 2 * MAX_PLAIN_DATA_DEPTH &&
      typeof parsed === "object" &&
      parsed !== null &&
      nestsDeeperThan(parsed, MAX_PLAIN_DATA_DEPTH)
    ) {
      throw new TrellisError("SERIALIZATION", `Stored value nests deeper than ${MAX_PLAIN_DATA_DEPTH} levels.`);
    }
    return parsed;
  },
};

/** Whether a parsed JSON value has objects nested more than `limit` deep (iterative: any depth is safe). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (let i = 0; i < children.length; i++) {
      const child: unknown = children[i];
      if (child !== null && typeof child === "object") {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * A short digest of stored text, kept beside each row so savers detect corruption on read.
 *
 * @example
 * checksum("abc") === checksum("abc"); // true
 */
export function checksum(text: string): string {
  return digest("sha1", text).slice(0, 16);
}

function encode(value: unknown): unknown {
  if (typeof value === "bigint") return { [TAG]: "BigInt", v: value.toString() };
  // JSON would drop `undefined` (or make it null in a Map or Set) and turn -0 into 0.
  if (value === undefined) return { [TAG]: "Undefined" };
  if (Object.is(value, -0)) return { [TAG]: "Number", v: "-0" };
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(encode);
  if (value instanceof Date) return { [TAG]: "Date", v: value.toISOString() };
  if (value instanceof Uint8Array) return { [TAG]: "Bytes", v: Buffer.from(value).toString("base64") };
  if (value instanceof Map) return { [TAG]: "Map", v: [...value].map(([k, v]) => [encode(k), encode(v)]) };
  if (value instanceof Set) return { [TAG]: "Set", v: [...value].map(encode) };
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    defineOwn(out, key, encode((value as Record<string, unknown>)[key]));
  }
  return TAG in out ? { [TAG]: "Object", v: out } : out;
}

function decode(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_PLAIN_DATA_DEPTH) {
    throw new TrellisError("SERIALIZATION", `Stored value nests deeper than ${MAX_PLAIN_DATA_DEPTH} levels.`);
  }
  if (Array.isArray(value)) return value.map((item) => decode(item, depth + 1));
  const record = value as Record<string, unknown>;
  const tag = record[TAG];
  if (typeof tag === "string" && Object.hasOwn(record, TAG)) return decodeTagged(tag, record.v, depth);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) defineOwn(out, key, decode(record[key], depth + 1));
  return out;
}

function decodeTagged(tag: string, v: unknown, depth: number): unknown {
  switch (tag) {
    case "Date":
      return new Date(text(tag, v));
    case "BigInt":
      try {
        return BigInt(text(tag, v));
      } catch {
        throw new TrellisError("SERIALIZATION", "Stored value has a malformed BigInt.");
      }
    case "Undefined":
      return undefined;
    case "Number":
      return Number(text(tag, v));
    case "Bytes":
      return new Uint8Array(Buffer.from(text(tag, v), "base64"));
    case "Map":
      return new Map(
        (Array.isArray(v) ? v : []).map((pair) => {
          const [k, val] = Array.isArray(pair) ? pair : [];
          return [decode(k, depth + 1), decode(val, depth + 1)] as const;
        }),
      );
    case "Set":
      return new Set((Array.isArray(v) ? v : []).map((item) => decode(item, depth + 1)));
    case "Object": {
      const out: Record<string, unknown> = {};
      const inner = (v ?? {}) as Record<string, unknown>;
      for (const key of Object.keys(inner)) defineOwn(out, key, decode(inner[key], depth + 1));
      return out;
    }
    default:
      throw new TrellisError("SERIALIZATION", `Stored value has an unknown tag "${tag}".`);
  }
}

/** The string a tag carries; anything else (an object with a hostile `toString`…) is malformed. */
function text(tag: string, v: unknown): string {
  if (typeof v !== "string") throw new TrellisError("SERIALIZATION", `Stored value has a malformed ${tag}.`);
  return v;
}

/** Sets an own data property, even for the key `__proto__`, without invoking any setter. */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
