/**
 * The run form's typed fields, read from the graph's input JSON Schema (`GET /assistants/{id}/schemas`,
 * built from the channels' declared schemas): a choice for an enum, a checkbox for a boolean, a number
 * box (whole numbers for integers, with the schema's bounds) and a text box for text. Keys without such
 * a schema (messages, lists, objects, anything) stay in the JSON input.
 */

/** A JSON Schema node. */
export type JsonSchema = Record<string, unknown>;

/** One typed field of the run form. */
export interface SchemaField {
  key: string;
  kind: "choice" | "checkbox" | "integer" | "number" | "text";
  /** The enum's values, for `choice`. */
  choices?: readonly unknown[];
  /** The schema allows null: the field may be left empty. */
  nullable: boolean;
  /** The top-level `required` list names it: it may not be left empty. */
  required: boolean;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  description?: string;
}

/**
 * The typed fields of an input schema, in the schema's key order.
 *
 * @example
 * schemaFields({ properties: { dry_run: { type: "boolean", default: false } } }); // [{ key: "dry_run", kind: "checkbox", … }]
 */
export function schemaFields(inputSchema: JsonSchema | undefined): SchemaField[] {
  const properties = (inputSchema?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(inputSchema?.required) ? (inputSchema.required as string[]) : []);
  const out: SchemaField[] = [];
  for (const [key, schema] of Object.entries(properties)) {
    const variants = variantsOf(schema);
    const nullable = variants.some((v) => v.type === "null");
    const typed = variants.filter((v) => v.type !== "null");
    if (typed.length !== 1) continue;
    const one = typed[0] as JsonSchema;
    const kind = kindOf(one);
    if (!kind) continue;
    const field: SchemaField = { key, kind, nullable, required: required.has(key) };
    if (kind === "choice") field.choices = one.enum as unknown[];
    if (typeof one.minimum === "number") field.minimum = one.minimum;
    if (typeof one.maximum === "number" && Math.abs(one.maximum) < Number.MAX_SAFE_INTEGER) field.maximum = one.maximum;
    if ("default" in schema) field.default = schema.default;
    const description = schema.description ?? one.description;
    if (typeof description === "string") field.description = description;
    out.push(field);
  }
  return out;
}

/** A schema's alternatives: its `anyOf`, or one per entry of a `type` list (`["string", "null"]`). */
function variantsOf(schema: JsonSchema): JsonSchema[] {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).flatMap(variantsOf);
  if (Array.isArray(schema.type)) return (schema.type as unknown[]).map((type) => ({ ...schema, type }));
  return [schema];
}

function kindOf(schema: JsonSchema): SchemaField["kind"] | undefined {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return "choice";
  if (schema.type === "boolean") return "checkbox";
  if (schema.type === "integer") return "integer";
  if (schema.type === "number") return "number";
  if (schema.type === "string") return "text";
  return undefined;
}

/**
 * What a field's form value (the text of its box, or the checkbox's state) is as input, or the problem
 * with it in words that name the key.
 *
 * @example
 * fieldValue({ key: "max_retries", kind: "integer", nullable: false, required: false, minimum: 1 }, "0");
 * // { problem: "max_retries must be 1 or more." }
 */
export function fieldValue(field: SchemaField, raw: string | boolean): { value: unknown } | { problem: string } {
  if (field.kind === "checkbox") return { value: raw === true };
  const text = String(raw);
  if (text === "") {
    if (field.required) return { problem: `${field.key} is required.` };
    return { value: field.nullable ? null : undefined };
  }
  if (field.kind === "choice") {
    const match = field.choices?.find((c) => String(c) === text);
    return match === undefined
      ? { problem: `${field.key} must be one of ${field.choices?.map(String).join(", ")}.` }
      : { value: match };
  }
  if (field.kind === "text") return { value: text };
  const n = Number(text);
  if (!Number.isFinite(n) || (field.kind === "integer" && !Number.isInteger(n))) {
    return { problem: `${field.key} must be ${field.kind === "integer" ? "a whole number" : "a number"}.` };
  }
  if (field.minimum !== undefined && n < field.minimum)
    return { problem: `${field.key} must be ${field.minimum} or more.` };
  if (field.maximum !== undefined && n > field.maximum)
    return { problem: `${field.key} must be ${field.maximum} or less.` };
  return { value: n };
}

/** A field's starting form value: the example's, else the schema's default, else empty. */
export function initialFieldValue(field: SchemaField, example: Record<string, unknown>): string | boolean {
  const value = field.key in example ? example[field.key] : field.default;
  if (field.kind === "checkbox") return value === true;
  return value === undefined || value === null ? "" : String(value);
}
