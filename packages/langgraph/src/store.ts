import {
  MemoryStore,
  type SearchItem,
  type Store,
  type StoreItem,
  type StoreListNamespacesOptions,
  type StoreSearchOptions,
} from "@trellis/checkpoint";

/**
 * One operation of {@link BaseStore.batch}, in LangGraph's shapes: a get, a put (`value: null`
 * deletes), a search, or a namespace listing.
 *
 * @example
 * const ops: Operation[] = [{ namespace: ["m"], key: "k" }, { namespace: ["m"], key: "k2", value: { a: 1 } }];
 */
export type Operation =
  | { namespace: string[]; key: string }
  | { namespace: string[]; key: string; value: Record<string, unknown> | null; index?: false | string[] }
  | { namespacePrefix: string[]; filter?: Record<string, unknown>; limit?: number; offset?: number; query?: string }
  | {
      matchConditions?: Array<{ matchType: "prefix" | "suffix"; path: string[] }>;
      maxDepth?: number;
      limit?: number;
      offset?: number;
    };

/**
 * An item of the store, as LangGraph names it.
 *
 * @example
 * const item: Item | null = await store.get(["memories", "u1"], "likes");
 */
export type Item = StoreItem;

/** Runs LangGraph's batch operations against a Trellis store, in order. @internal */
export async function runBatch(store: Store, ops: readonly Operation[]): Promise<unknown[]> {
  const results: unknown[] = [];
  for (const op of ops) {
    if ("namespacePrefix" in op) {
      const options: StoreSearchOptions = {};
      if (op.filter !== undefined) options.filter = op.filter;
      if (op.limit !== undefined) options.limit = op.limit;
      if (op.offset !== undefined) options.offset = op.offset;
      if (op.query !== undefined) options.query = op.query;
      results.push(await store.search(op.namespacePrefix, options));
    } else if ("value" in op) {
      if (op.value === null) await store.delete(op.namespace, op.key);
      else await store.put(op.namespace, op.key, op.value, op.index);
      results.push(undefined);
    } else if ("key" in op) {
      results.push(await store.get(op.namespace, op.key));
    } else {
      const options: StoreListNamespacesOptions = { limit: op.limit ?? 100, offset: op.offset ?? 0 };
      if (op.maxDepth !== undefined) options.maxDepth = op.maxDepth;
      for (const c of op.matchConditions ?? []) options[c.matchType] = c.path;
      results.push(await store.listNamespaces(options));
    }
  }
  return results;
}

/**
 * LangGraph's store base class: implement `batch`, and `get`/`put`/`delete`/`search`/`listNamespaces`
 * are built on it. Usable wherever a Trellis `Store` is (`compile({ store })`).
 *
 * @example
 * class LoggingStore extends BaseStore {
 *   inner = new InMemoryStore();
 *   async batch(ops: Operation[]) { console.log(ops.length); return this.inner.batch(ops); }
 * }
 */
export abstract class BaseStore implements Store {
  abstract batch(operations: Operation[]): Promise<unknown[]>;

  async get(namespace: readonly string[], key: string): Promise<StoreItem | null> {
    return ((await this.batch([{ namespace: [...namespace], key }]))[0] ?? null) as StoreItem | null;
  }

  async put(
    namespace: readonly string[],
    key: string,
    value: Record<string, unknown>,
    index?: false | string[] | object,
  ): Promise<void> {
    const op: Operation = { namespace: [...namespace], key, value };
    if (index === false || Array.isArray(index)) op.index = index;
    await this.batch([op]);
  }

  async delete(namespace: readonly string[], key: string): Promise<void> {
    await this.batch([{ namespace: [...namespace], key, value: null }]);
  }

  async search(namespacePrefix: readonly string[], options: StoreSearchOptions = {}): Promise<SearchItem[]> {
    return ((await this.batch([{ namespacePrefix: [...namespacePrefix], ...options }]))[0] ?? []) as SearchItem[];
  }

  async listNamespaces(options: StoreListNamespacesOptions = {}): Promise<string[][]> {
    const matchConditions: Array<{ matchType: "prefix" | "suffix"; path: string[] }> = [];
    if (options.prefix) matchConditions.push({ matchType: "prefix", path: options.prefix });
    if (options.suffix) matchConditions.push({ matchType: "suffix", path: options.suffix });
    const op: Operation = { matchConditions, limit: options.limit ?? 100, offset: options.offset ?? 0 };
    if (options.maxDepth !== undefined) op.maxDepth = options.maxDepth;
    return ((await this.batch([op]))[0] ?? []) as string[][];
  }

  async sweepExpired(): Promise<number> {
    return 0;
  }

  start(): void {}
  stop(): void {}
}

/**
 * LangGraph's in-memory store: Trellis's `MemoryStore` (namespaces, filters, optional semantic index
 * with `{ index: { embed, dims } }`) with LangGraph's `batch`.
 *
 * @example
 * const store = new InMemoryStore();
 * await store.put(["memories", "u1"], "likes", { text: "green tea" });
 * const [item] = await store.batch([{ namespace: ["memories", "u1"], key: "likes" }]);
 */
export class InMemoryStore extends MemoryStore {
  /** Runs LangGraph's operations in order and returns their results. */
  batch(operations: Operation[]): Promise<unknown[]> {
    return runBatch(this, operations);
  }
  start(): void {}
  stop(): void {}
}

const withBatch = new WeakMap<Store, BaseStore>();

/**
 * A Trellis store (a server's, a saver's) as LangGraph's `BaseStore`: the same object when it has
 * `batch` already, else one wrapper per store that adds it. @internal
 */
export function asBaseStore(store: Store): BaseStore {
  if (typeof (store as Partial<BaseStore>).batch === "function") return store as BaseStore;
  let wrapped = withBatch.get(store);
  if (!wrapped) {
    const delegate: Omit<BaseStore, never> = {
      batch: (ops: Operation[]) => runBatch(store, ops),
      get: (namespace, key) => store.get(namespace, key),
      put: (namespace, key, value, index) =>
        store.put(namespace, key, value, index === false || Array.isArray(index) ? index : undefined),
      delete: (namespace, key) => store.delete(namespace, key),
      search: (prefix, options) => store.search(prefix, options),
      listNamespaces: (options) => store.listNamespaces(options),
      sweepExpired: () => store.sweepExpired(),
      start() {},
      stop() {},
    };
    wrapped = delegate as BaseStore;
    withBatch.set(store, wrapped);
  }
  return wrapped;
}
