import type { GraphSpec } from "../graph/spec.js";
import { type JsonSchema, jsonSchemaOf } from "./standard-schema.js";

/**
 * The JSON Schemas of a compiled graph, from {@link CompiledGraph.getSchemas}: what a run's input may
 * hold (only the graph's `input` keys when it declares them), the state, what it returns (its
 * `output` keys), and the run's `configurable` and `context`.
 *
 * @example
 * const { input }: GraphSchemas = graph.getSchemas();
 * Object.keys(input.properties as object); // the state keys, each with its JSON Schema
 */
export interface GraphSchemas {
  input: JsonSchema;
  output: JsonSchema;
  state: JsonSchema;
  config: JsonSchema;
  /** `null` when the graph declares no context schema. */
  context: JsonSchema | null;
}

/** Builds {@link GraphSchemas} from the channels' schemas (a key without one is `{}`: anything). @internal */
export function graphSchemas(spec: GraphSpec): GraphSchemas {
  const properties: Record<string, JsonSchema> = {};
  for (const [key, channel] of Object.entries(spec.schema)) {
    const own = channel.jsonSchema ?? jsonSchemaOf(channel.schema) ?? {};
    properties[key] = withDefault(own, channel.initial());
  }
  const state = { title: spec.name, type: "object", properties };
  return {
    input: subsetOf(state, spec.inputKeys),
    output: subsetOf(state, spec.outputKeys),
    state,
    config: jsonSchemaOf(spec.configSchema) ?? { type: "object", properties: {} },
    context: jsonSchemaOf(spec.contextSchema) ?? null,
  };
}

/** The state schema with only `keys` (all of them when `keys` is undefined). */
function subsetOf(
  state: { title: string; type: string; properties: Record<string, JsonSchema> },
  keys: readonly string[] | undefined,
): JsonSchema {
  if (keys === undefined) return state;
  const properties: Record<string, JsonSchema> = {};
  for (const key of keys) if (state.properties[key]) properties[key] = state.properties[key];
  return { ...state, properties };
}

/** Adds the channel's default, when it is plain JSON and the schema does not state one. */
function withDefault(schema: JsonSchema, initial: unknown): JsonSchema {
  if (initial === undefined || "default" in schema) return schema;
  if (Array.isArray(initial) && initial.length === 0) return { ...schema, default: [] };
  const kind = typeof initial;
  if (initial === null || kind === "string" || kind === "number" || kind === "boolean") {
    return { ...schema, default: initial };
  }
  return schema;
}
