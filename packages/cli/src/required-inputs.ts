/** A JSON Schema node, as `getSchemas()` builds them. */
type JsonSchema = Record<string, unknown>;

/**
 * The input keys `trellis run` asks for when it is given no input: the keys of the graph's input
 * schema (`getSchemas().input`) that have no default, or an empty text as their default (`request:
 * channel.value("")`) — running with them empty is rarely what a person means. Keys with any other
 * default (a number, a list, a status) are left to their default.
 *
 * @example
 * requiredInputKeys(graph.getSchemas().input); // ["request", "draft"] for examples/src/approval-flow.ts
 */
export function requiredInputKeys(inputSchema: JsonSchema): string[] {
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties)
    .filter(([, schema]) => !("default" in schema) || schema.default === undefined || schema.default === "")
    .map(([key]) => key);
}
