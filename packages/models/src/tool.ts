import { TrellisError } from "@trellis/common";
import * as z from "zod";
import type { JsonSchema, ToolDefinition } from "./chat-model.js";
import type { ToolCall } from "./messages.js";

/**
 * What a tool function receives besides its arguments.
 *
 * @example
 * tool({ name: "whoami", description: "Who is asking", schema: z.object({}), fn: (_args, ctx) => ctx.state.userId });
 */
export interface ToolContext {
  /** The call being answered (its id, name and the arguments the model sent). */
  toolCall: ToolCall;
  /** The graph state (or whatever the caller passed as `state`); `{}` when none. */
  state: Readonly<Record<string, unknown>>;
  signal: AbortSignal | undefined;
  /** Anything else the caller passes (the graph runtime passes its config and store here). */
  context: Readonly<Record<string, unknown>>;
}

/**
 * A tool: a {@link ToolDefinition} the model sees, plus what validates and runs it. Made by
 * {@link tool}; run it with `invokeTool`.
 *
 * @example
 * const tools: Tool[] = [getWeather, search];
 * await model.invoke(messages, { tools });
 */
export interface Tool<Args = Record<string, unknown>, Result = unknown> extends ToolDefinition {
  /** Validates the full arguments (model's and injected). `undefined` for tools defined by JSON Schema. */
  readonly schema: z.ZodType | undefined;
  /** Argument name → state key, for arguments filled from the state and hidden from the model. */
  readonly injected: Readonly<Record<string, string>>;
  fn(args: Args, ctx: ToolContext): Result | Promise<Result>;
}

/**
 * Which arguments come from the state: a list of keys (argument name = state key), or a map from
 * argument name to state key.
 *
 * @example
 * const inject: InjectState<"asignatura"> = ["asignatura"];
 * const renamed: InjectState<"subject"> = { subject: "asignatura" };
 */
export type InjectState<K extends string = string> = readonly K[] | { readonly [P in K]?: string };

/**
 * A tool described by a zod object schema.
 *
 * @example
 * const spec: ZodToolSpec<typeof schema, string> = { name: "echo", description: "Echo", schema, fn: (a) => a.text };
 */
export interface ZodToolSpec<S extends z.ZodObject, R> {
  name: string;
  description: string;
  schema: S;
  fn(args: z.output<S>, ctx: ToolContext): R | Promise<R>;
  injectState?: InjectState<keyof z.output<S> & string>;
}

/**
 * A tool described by a JSON Schema (MCP tools, for instance); its arguments are checked only for the
 * schema's `required` keys.
 *
 * @example
 * const spec: JsonToolSpec<unknown> = { name: "ping", description: "Ping", parameters: { type: "object", properties: {} }, fn: () => "pong" };
 */
export interface JsonToolSpec<R> {
  name: string;
  description: string;
  parameters: JsonSchema;
  fn(args: Record<string, unknown>, ctx: ToolContext): R | Promise<R>;
  injectState?: InjectState;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Defines a tool. The zod schema (zod 4) becomes the JSON Schema the model sees, minus the arguments
 * listed in `injectState`: those are filled from the state when the tool runs, so the model can neither
 * see nor forge them. Invalid arguments and thrown errors become tool messages (see `invokeTool`).
 *
 * @example
 * import { z } from "zod";
 * const getGuia = tool({
 *   name: "get_guia",
 *   description: "Returns the teaching guide of the current subject.",
 *   schema: z.object({ section: z.string().describe("Section title"), asignatura: z.string() }),
 *   injectState: ["asignatura"],
 *   fn: async ({ section, asignatura }) => loadGuide(asignatura, section),
 * });
 * getGuia.parameters; // { type: "object", properties: { section: {...} }, required: ["section"] }
 */
export function tool<S extends z.ZodObject, R>(spec: ZodToolSpec<S, R>): Tool<z.output<S>, R>;
export function tool<R>(spec: JsonToolSpec<R>): Tool<Record<string, unknown>, R>;
export function tool<R>(spec: ZodToolSpec<z.ZodObject, R> | JsonToolSpec<R>): Tool<Record<string, unknown>, R> {
  if (!TOOL_NAME.test(spec.name)) {
    throw invalid(spec.name, "its name must be 1-64 letters, digits, _ or - (what providers accept)");
  }
  if (typeof spec.description !== "string" || spec.description.trim() === "") {
    throw invalid(spec.name, "it needs a description: the model chooses tools by their descriptions");
  }
  const schema = "schema" in spec ? spec.schema : undefined;
  const full = schema
    ? zodToJsonSchema(spec.name, schema)
    : jsonObjectSchema(spec.name, (spec as JsonToolSpec<R>).parameters);
  const injected = normalizeInjected(spec.injectState);
  const properties = (full.properties ?? {}) as Record<string, unknown>;
  for (const arg of Object.keys(injected)) {
    if (!(arg in properties)) throw invalid(spec.name, `it injects "${arg}", which is not among its arguments`);
  }
  const fn = spec.fn as Tool<Record<string, unknown>, R>["fn"];
  return {
    name: spec.name,
    description: spec.description,
    parameters: hideArguments(full, Object.keys(injected)),
    schema,
    injected,
    fn,
  };
}

function zodToJsonSchema(name: string, schema: z.ZodType): JsonSchema {
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  } catch (error) {
    throw invalid(name, `its schema cannot be turned into JSON Schema (${(error as Error).message})`);
  }
  return jsonObjectSchema(name, json);
}

function jsonObjectSchema(name: string, schema: JsonSchema): JsonSchema {
  if (schema === null || typeof schema !== "object" || schema.type !== "object") {
    throw invalid(name, 'its schema must describe an object (`z.object({...})` or `{ type: "object" }`)');
  }
  const { $schema: _dialect, ...rest } = schema;
  return { ...rest, properties: rest.properties ?? {} };
}

function normalizeInjected(inject: InjectState | undefined): Record<string, string> {
  if (!inject) return {};
  if (Array.isArray(inject)) return Object.fromEntries((inject as readonly string[]).map((k) => [k, k]));
  const out: Record<string, string> = {};
  for (const [arg, key] of Object.entries(inject as Record<string, string | undefined>)) if (key) out[arg] = key;
  return out;
}

function hideArguments(schema: JsonSchema, hidden: readonly string[]): JsonSchema {
  if (hidden.length === 0) return schema;
  const properties = { ...(schema.properties as Record<string, unknown>) };
  for (const arg of hidden) delete properties[arg];
  const out: JsonSchema = { ...schema, properties };
  if (Array.isArray(schema.required)) {
    const required = (schema.required as string[]).filter((k) => !hidden.includes(k));
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  return out;
}

function invalid(name: string, problem: string): TrellisError {
  return new TrellisError("INVALID_ARGUMENT", `Tool "${name}" cannot be defined: ${problem}.`, {
    details: { tool: name },
  });
}
