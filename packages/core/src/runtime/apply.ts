import { InvalidUpdateError } from "../errors.js";
import type { StateSchema } from "../state.js";

/** One task's validated update, tagged with the node that wrote it. @internal */
export interface TaskWrite {
  node: string;
  update: Record<string, unknown>;
}

/** @internal */
export interface ApplyResult {
  values: Record<string, unknown>;
  /** Changed key → the items appended, or null when the change was not a pure append. */
  changed: Map<string, unknown[] | null>;
}

/**
 * Applies one superstep's writes to the state, in the order given (the tasks' planned order), through
 * each key's channel. Pure: returns new values and leaves `values` untouched. @internal
 */
export function applyWrites(
  schema: StateSchema,
  values: Record<string, unknown>,
  writes: readonly TaskWrite[],
): ApplyResult {
  const changed = new Map<string, unknown[] | null>();
  if (writes.length === 0) return { values, changed };
  if (writes.length === 1) return applyOne(schema, values, (writes[0] as TaskWrite).update, changed);
  const byKey = new Map<string, { updates: unknown[]; nodes: string[] }>();
  for (const { node, update } of writes) {
    for (const key in update) {
      // `{ messages: cond ? [m] : undefined }`: undefined is no write for a reducer (a value key takes it).
      if (update[key] === undefined && schema[key]?.kind !== "value") continue;
      let entry = byKey.get(key);
      if (!entry) {
        entry = { updates: [], nodes: [] };
        byKey.set(key, entry);
      }
      entry.updates.push(update[key]);
      entry.nodes.push(node);
    }
  }
  const next = { ...values };
  for (const [key, { updates, nodes }] of byKey) {
    const channel = schema[key];
    if (!channel) continue;
    if (channel.kind === "value" && updates.length > 1) {
      throw new InvalidUpdateError(
        "INVALID_UPDATE",
        `State key "${key}" holds one value, but nodes ${nodes.map((n) => `"${n}"`).join(" and ")} wrote it in the same superstep. Give it a reducer (channel.reduce or channel.append) or let only one of them write it.`,
        { details: { key, nodes } },
      );
    }
    const result = channel.apply(next[key], updates);
    next[key] = result.value;
    changed.set(key, result.appended);
  }
  // Routers and the next step's tasks read these values; they must not change them in place.
  return { values: Object.freeze(next), changed };
}

/** {@link applyWrites} for a step with one write: no key can be written twice, so nothing to group. */
function applyOne(
  schema: StateSchema,
  values: Record<string, unknown>,
  update: Record<string, unknown>,
  changed: Map<string, unknown[] | null>,
): ApplyResult {
  const next = { ...values };
  for (const key in update) {
    const value = update[key];
    const channel = schema[key];
    if (!channel || (value === undefined && channel.kind !== "value")) continue;
    const result = channel.apply(next[key], [value]);
    next[key] = result.value;
    changed.set(key, result.appended);
  }
  return { values: Object.freeze(next), changed };
}

/** The default values of every key of a schema. @internal */
export function initialValues(schema: StateSchema): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(schema)) values[key] = (schema[key] as { initial(): unknown }).initial();
  return values;
}
