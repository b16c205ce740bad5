import { InvalidUpdateError } from "../errors.js";
import type { GraphSpec } from "../graph/spec.js";

/**
 * Refuses a run's input that sets a key outside the graph's `input` keys (when it declares them): an
 * `INVALID_UPDATE` naming the key and listing the input keys. LangGraph drops such keys silently;
 * Trellis says so, as it does for keys the state does not have. @internal
 */
export function checkInputKeys(spec: GraphSpec, update: Record<string, unknown>): void {
  const allowed = spec.inputKeys;
  if (allowed === undefined) return;
  const outside = Object.keys(update).filter((key) => !allowed.includes(key));
  if (outside.length === 0) return;
  throw new InvalidUpdateError(
    "INVALID_UPDATE",
    `The run's input sets ${outside.map((k) => `"${k}"`).join(", ")}, which graph "${spec.name}" keeps to itself: its input keys are ${allowed.join(", ") || "(none)"}. Send only those (getSchemas().input lists them); to change another key, use updateState or Command({ update }).`,
    { details: { keys: outside, inputKeys: [...allowed] } },
  );
}

/** The input with only the graph's `input` keys: what a subgraph takes from its parent's state. @internal */
export function pickInput(spec: GraphSpec, input: Record<string, unknown>): Record<string, unknown> {
  return pick(input, spec.inputKeys);
}

/** The values with only the graph's `output` keys: what a run returns. @internal */
export function pickOutput(spec: GraphSpec, values: Record<string, unknown>): Record<string, unknown> {
  return pick(values, spec.outputKeys);
}

function pick(values: Record<string, unknown>, keys: readonly string[] | undefined): Record<string, unknown> {
  // copied with `Object.assign` (the keys are the schema's channels): an invoke adds `__interrupt__` to
  // the copy, and a key added to a spread's copy gives it a hidden class of its own on V8
  if (keys === undefined) return Object.assign({}, values);
  const out: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(values, key)) out[key] = values[key];
  return out;
}
