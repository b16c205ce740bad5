/**
 * The two community contracts a state schema may come in, copied as the spec asks (standardschema.dev):
 * Standard Schema v1 (`~standard.validate`, implemented by zod 4, Valibot, ArkType…) and Standard JSON
 * Schema v1 (`~standard.jsonSchema`, zod ≥ 4.2). Core depends on no schema library.
 */

/**
 * A JSON Schema document, as plain data.
 *
 * @example
 * const schema: JsonSchema = { type: "integer", minimum: 0 };
 */
export type JsonSchema = Record<string, unknown>;

/**
 * One problem a schema found: a message and where in the value.
 *
 * @example
 * const issue: SchemaIssue = { message: "expected a number", path: ["items", 0] };
 */
export interface SchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/**
 * Any Standard Schema v1 validator: zod 4, Valibot, ArkType, or a hand-written `{ "~standard": … }`.
 *
 * @example
 * import { z } from "zod";
 * const schema: StandardSchemaV1<unknown, number> = z.number().int();
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) =>
      | { readonly value: Output; readonly issues?: undefined }
      | { readonly issues: ReadonlyArray<SchemaIssue> }
      | Promise<
          { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<SchemaIssue> }
        >;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** Standard JSON Schema v1: present on zod ≥ 4.2 schemas. */
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => JsonSchema;
      readonly output: (options: { readonly target: string }) => JsonSchema;
    };
  };
}

/** What a check of a value against a schema found: nothing, or the issues. @internal */
export function issuesOf(schema: StandardSchemaV1, value: unknown): readonly SchemaIssue[] {
  const result = schema["~standard"].validate(value);
  if (result instanceof Promise) {
    throw new TypeError(
      "A state schema validated asynchronously (an async refinement?). State schemas must validate synchronously.",
    );
  }
  return result.issues ?? [];
}

/** `a.b[0]` for an issue's path, "" for the value itself. @internal */
export function pathText(path: SchemaIssue["path"]): string {
  let out = "";
  for (const segment of path ?? []) {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment;
    out += typeof key === "number" ? `[${key}]` : `.${String(key)}`;
  }
  return out;
}

/**
 * The JSON Schema of a Standard Schema's input (what callers send), from its Standard JSON Schema
 * interface; `undefined` when the schema has none or cannot say. The `$schema` line is left out: these
 * documents sit inside a larger one. @internal
 */
export function jsonSchemaOf(schema: StandardSchemaV1 | undefined): JsonSchema | undefined {
  const converter = schema?.["~standard"].jsonSchema;
  if (!converter) return undefined;
  try {
    const { $schema: _drop, ...rest } = converter.input({ target: "draft-2020-12" });
    return rest;
  } catch {
    return undefined;
  }
}
