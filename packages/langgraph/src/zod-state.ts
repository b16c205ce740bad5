import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { BaseChannel, type StateDefinition } from "./annotation.js";
import { type Messages, messagesStateReducer } from "./messages-reducer.js";

/**
 * What LangGraph attaches to a zod field of a state schema: its reducer and default.
 *
 * @example
 * const meta: ZodMeta = { reducer: { fn: (a: string[], b: string[]) => a.concat(b) }, default: () => [] };
 */
export interface ZodMeta<V = unknown, U = V> {
  reducer?: { fn: (a: V, b: U) => V; schema?: unknown };
  default?: () => V;
  jsonSchemaExtra?: Record<string, unknown>;
}

/**
 * LangGraph's registry of zod field metadata: `field.register(registry, { reducer, default })`.
 *
 * @example
 * const State = z.object({ notes: z.array(z.string()).register(registry, { reducer: { fn: (a, b) => a.concat(b) }, default: () => [] }) });
 */
export class SchemaMetaRegistry {
  readonly #meta = new WeakMap<object, ZodMeta>();
  add(schema: object, meta: ZodMeta = {}): this {
    this.#meta.set(schema, meta);
    return this;
  }
  get(schema: object): ZodMeta | undefined {
    return this.#meta.get(schema);
  }
  has(schema: object): boolean {
    return this.#meta.has(schema);
  }
  remove(schema: object): this {
    this.#meta.delete(schema);
    return this;
  }
  clear(): this {
    return this;
  }
}

/**
 * The registry {@link withLangGraph} and `.register(registry, meta)` write to.
 *
 * @example
 * z.array(z.string()).register(registry, { reducer: { fn: (a, b) => a.concat(b) }, default: () => [] });
 */
export const registry = new SchemaMetaRegistry();

/**
 * Attaches a reducer and a default to a zod field (LangGraph's zod 3 style).
 *
 * @example
 * const State = z.object({ count: withLangGraph(z.number(), { reducer: { fn: (a, b) => a + b }, default: () => 0 }) });
 */
export function withLangGraph<T extends object>(schema: T, meta: ZodMeta): T {
  registry.add(schema, meta);
  return schema;
}

/**
 * The metadata of a messages field: merged by `messagesStateReducer`, empty by default.
 *
 * @example
 * const State = z.object({ messages: z.custom<BaseMessage[]>().register(registry, MessagesZodMeta) });
 */
export const MessagesZodMeta: ZodMeta<BaseMessage[], Messages> = {
  reducer: { fn: messagesStateReducer },
  jsonSchemaExtra: { langgraph_type: "messages" },
  default: () => [],
};

/**
 * A zod state with a `messages` field, the zod twin of `MessagesAnnotation`.
 *
 * @example
 * const State = MessagesZodState.extend({ topic: z.string().optional() });
 */
export const MessagesZodState = z.object({
  messages: withLangGraph(z.custom<BaseMessage[]>(), MessagesZodMeta as ZodMeta),
});

interface ZodLike {
  _zod?: { def?: { type?: string; defaultValue?: unknown; innerType?: ZodLike } };
  _def?: { typeName?: string; defaultValue?: () => unknown; innerType?: ZodLike };
  shape?: Record<string, unknown>;
}

/** True for a zod object schema (zod 3 or 4). @internal */
export function isZodObject(value: unknown): value is ZodLike {
  const v = value as ZodLike | null;
  return typeof v === "object" && v !== null && (v._zod?.def?.type === "object" || v._def?.typeName === "ZodObject");
}

function defaultOf(field: ZodLike): (() => unknown) | undefined {
  if (field._zod?.def?.type === "default") {
    const d = field._zod.def.defaultValue;
    return () => structuredClone(typeof d === "function" ? (d as () => unknown)() : d);
  }
  if (field._def?.typeName === "ZodDefault") return field._def.defaultValue;
  return undefined;
}

/** A zod object's fields as a state definition (reducers and defaults from the registry or `.default()`). @internal */
export function zodDefinition(schema: ZodLike): StateDefinition {
  const out: StateDefinition = {};
  for (const [key, field] of Object.entries(schema.shape ?? {})) {
    const meta = registry.get(field as object);
    const initial = meta?.default ?? defaultOf(field as ZodLike);
    out[key] = new BaseChannel(meta?.reducer?.fn as ((a: unknown, b: unknown) => unknown) | undefined, initial);
  }
  return out;
}
