import { CliError } from "./io.js";

/** A JSON Schema node, as `getSchemas()` builds them. */
type JsonSchema = Record<string, unknown>;

/**
 * Turns `key=value` arguments of `trellis run` into input state, each value read as its key's type in
 * the graph's input JSON Schema (`getSchemas().input`): integers and numbers, `true`/`false`
 * (`yes`/`no`), one of an enum, `null` where the key allows it, JSON for objects and lists, and text
 * as it is. A key the graph does not have, or a value that is not of its key's type, is a usage error
 * (exit 2) that names the key and says what it takes.
 *
 * @example
 * inputFromFields(["dry_run=true", "max_retries=2"], graph.getSchemas().input); // { dry_run: true, max_retries: 2 }
 */
export function inputFromFields(fields: readonly string[], inputSchema: JsonSchema): Record<string, unknown> {
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const eq = field.indexOf("=");
    if (eq <= 0) {
      throw new CliError(`"${field}" is not a key=value pair. Example: trellis run <graph> topic=safety count=3`, 2);
    }
    const key = field.slice(0, eq);
    const schema = properties[key];
    if (!schema) {
      throw new CliError(
        `"${key}" is not an input of this graph. Its keys: ${Object.keys(properties).join(", ") || "(none)"}.`,
        2,
      );
    }
    out[key] = coerce(key, field.slice(eq + 1), schema);
  }
  return out;
}

/** What a key takes, in words, for error messages: `an integer ≥ 1`, `one of dev, tst, prd`… */
export function describeField(schema: JsonSchema): string {
  const { types, nullable, choices } = shapeOf(schema);
  if (choices) return `one of ${choices.map((c) => JSON.stringify(c)).join(", ")}${nullable ? " or null" : ""}`;
  const words: Record<string, string> = {
    integer: "a whole number",
    number: "a number",
    boolean: "true or false",
    string: "text",
    object: "a JSON object",
    array: "a JSON list",
  };
  const base = types.map((t) => words[t] ?? t).join(" or ") || "any JSON value";
  const bounds = [
    typeof schema.minimum === "number" ? `≥ ${schema.minimum}` : "",
    typeof schema.maximum === "number" && Math.abs(schema.maximum) < Number.MAX_SAFE_INTEGER
      ? `≤ ${schema.maximum}`
      : "",
  ].filter(Boolean);
  const ranged = bounds.length > 0 ? `${base} ${bounds.join(" and ")}` : base;
  return nullable ? `${ranged} or null` : ranged;
}

function coerce(key: string, raw: string, schema: JsonSchema): unknown {
  const { types, nullable, choices } = shapeOf(schema);
  const refuse = (): never => {
    throw new CliError(`${key}=${raw}: "${key}" takes ${describeField(schema)}.`, 2);
  };
  if (nullable && raw === "null") return null;
  if (choices) {
    const match = choices.find((c) => String(c) === raw);
    return match === undefined ? refuse() : match;
  }
  if (types.length === 0) return parseJsonOr(raw, raw);
  for (const type of types) {
    if (type === "string") return raw;
    if (type === "integer" && /^-?\d+$/.test(raw)) return Number(raw);
    if (type === "number" && raw.trim() !== "" && Number.isFinite(Number(raw))) return Number(raw);
    if (type === "boolean") {
      const lower = raw.toLowerCase();
      if (["true", "yes", "y", "1"].includes(lower)) return true;
      if (["false", "no", "n", "0"].includes(lower)) return false;
    }
    if (type === "object" || type === "array") {
      const value = parseJsonOr(raw, undefined);
      const isList = Array.isArray(value);
      if (value !== null && typeof value === "object" && isList === (type === "array")) return value;
    }
  }
  return refuse();
}

/** The types a schema allows (through `anyOf`), whether it allows null, and its enum when it has one. */
function shapeOf(schema: JsonSchema): { types: string[]; nullable: boolean; choices: unknown[] | undefined } {
  const variants = Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]) : [schema];
  const types: string[] = [];
  let nullable = false;
  let choices: unknown[] | undefined;
  for (const variant of variants) {
    const listed = Array.isArray(variant.type) ? (variant.type as string[]) : [variant.type];
    for (const type of listed) {
      if (type === "null") nullable = true;
      else if (typeof type === "string" && !types.includes(type)) types.push(type);
    }
    if (Array.isArray(variant.enum)) choices = [...(choices ?? []), ...(variant.enum as unknown[])];
  }
  return { types, nullable, choices };
}

function parseJsonOr(raw: string, fallback: unknown): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return fallback;
  }
}
