/**
 * The long-term memory store: JSON documents under a hierarchical namespace, shared across threads, with
 * LangGraph's `BaseStore` semantics (put/get/search/delete/listNamespaces, filters, pagination, TTL in
 * minutes, optional semantic search). Nodes reach it as `ctx.store`; the server serves it on `/store/*`.
 * Run `describeStoreConformance` from `@trellis/checkpoint/testing` against an implementation.
 */

/**
 * One stored document.
 *
 * @example
 * const item: StoreItem | null = await store.get(["memories", "ana"], "prefs");
 * if (item) console.log(item.value, item.updatedAt.toISOString());
 */
export interface StoreItem {
  /** Where it lives, e.g. `["memories", "ana"]`. Labels are non-empty and hold no `.`. */
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A search hit: `score` is the cosine similarity to the query when the search had one and the item is indexed.
 *
 * @example
 * const hits: SearchItem[] = await store.search(["memories", "ana"], { query: "favourite food", limit: 3 });
 * for (const hit of hits) console.log(hit.key, hit.score);
 */
export interface SearchItem extends StoreItem {
  score?: number;
}

/**
 * A filter on an item's value: each key names a top-level field of the value, matched by deep equality,
 * or by an operator object (`{ $gt: 3 }`): `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`. All keys must match.
 *
 * @example
 * const filter: StoreFilter = { kind: "preference", stars: { $gte: 4 } };
 */
export type StoreFilter = Record<string, unknown>;

/**
 * How items are embedded for semantic search. `embed` turns texts into vectors of `dims` numbers; an AI
 * SDK embedding model fits through `embedWith` of `@trellis/models`, and `hashedBagOfWords` of the same
 * package is an offline one for tests.
 *
 * @example
 * const index: StoreIndexConfig = { embed: embedWith(openai.embedding("text-embedding-3-small")), dims: 1536, fields: ["text"] };
 */
export interface StoreIndexConfig {
  embed: (texts: string[]) => Promise<number[][]>;
  dims: number;
  /**
   * Fields of the value whose text is embedded: dotted paths (`"a.b"`), `[*]` for every element of a
   * list (`"notes[*].text"`), `"$"` for the whole value as JSON. Default `["$"]`.
   */
  fields?: string[];
}

/**
 * Expiry of items, in minutes as in LangGraph.
 *
 * @example
 * const ttl: StoreTtlConfig = { defaultTtl: 60 * 24, refreshOnRead: true, sweepIntervalMinutes: 5 };
 */
export interface StoreTtlConfig {
  /** TTL of an item put without one. Default: none (items live until deleted). */
  defaultTtl?: number;
  /** Whether `get` and `search` restart an item's TTL unless told otherwise. Default true. */
  refreshOnRead?: boolean;
  /** Sweep expired items this often (an unref'd timer). Default: no timer; call `sweepExpired()`. */
  sweepIntervalMinutes?: number;
}

/**
 * Options of {@link Store.put}.
 *
 * @example
 * const options: StorePutOptions = { index: ["text"], ttl: 60 * 24 };
 * await store.put(["memories", "ana"], "prefs", { text: "likes green tea" }, options);
 */
export interface StorePutOptions {
  /** `false`: do not embed this item; a list: embed these fields instead of the index's `fields`. */
  index?: false | string[];
  /** Minutes until the item expires (restarted by reads that refresh); `null`: never. Default: the store's `defaultTtl`. */
  ttl?: number | null;
}

/**
 * Options of {@link Store.get}.
 *
 * @example
 * const options: StoreGetOptions = { refreshTtl: false };
 * await store.get(["memories", "ana"], "prefs", options); // reads without extending its TTL
 */
export interface StoreGetOptions {
  /** Restart the item's TTL. Default: the store's `refreshOnRead` (true). */
  refreshTtl?: boolean;
}

/**
 * Options of {@link Store.search}.
 *
 * @example
 * const options: StoreSearchOptions = { filter: { kind: "preference" }, query: "drinks", limit: 5, offset: 5 };
 * const page2 = await store.search(["memories"], options);
 */
export interface StoreSearchOptions {
  filter?: StoreFilter;
  /** Most items returned. Default 10. */
  limit?: number;
  /** Items skipped first. Default 0. */
  offset?: number;
  /** Natural-language query: ranks by similarity when the store has an index; ignored otherwise. */
  query?: string;
  /** Restart the TTL of the returned items. Default: the store's `refreshOnRead` (true). */
  refreshTtl?: boolean;
}

/**
 * Options of {@link Store.listNamespaces}. In `prefix` and `suffix`, a `"*"` label matches any label.
 *
 * @example
 * await store.listNamespaces({ prefix: ["memories"], maxDepth: 2 });
 */
export interface StoreListNamespacesOptions {
  prefix?: string[];
  suffix?: string[];
  /** Namespaces longer than this are cut to it (and duplicates dropped). */
  maxDepth?: number;
  /** Default 100. */
  limit?: number;
  offset?: number;
}

/**
 * The store contract. Every method validates its input and throws a `TrellisError` with code
 * `INVALID_ARGUMENT` saying what to change.
 *
 * @example
 * await store.put(["memories", "ana"], "m1", { text: "likes tea" });
 * const item = await store.get(["memories", "ana"], "m1"); // { namespace, key, value, createdAt, updatedAt }
 * const hits = await store.search(["memories"], { filter: { text: "likes tea" }, limit: 5 });
 */
export interface Store {
  /** The item, or null when there is none (or it expired). */
  get(namespace: readonly string[], key: string, options?: StoreGetOptions): Promise<StoreItem | null>;
  /**
   * Creates or replaces the item; `createdAt` survives a replace. The fourth argument may also be
   * LangGraph's positional `index` (`false` or a list of fields).
   */
  put(
    namespace: readonly string[],
    key: string,
    value: Record<string, unknown>,
    options?: StorePutOptions | false | string[],
  ): Promise<void>;
  /** Removes the item; removing a missing one does nothing. */
  delete(namespace: readonly string[], key: string): Promise<void>;
  /**
   * Items under `namespacePrefix` (`[]`: all), newest update first, or by similarity to `query`.
   */
  search(namespacePrefix: readonly string[], options?: StoreSearchOptions): Promise<SearchItem[]>;
  /** The namespaces that hold items, sorted, filtered and cut as `options` say. */
  listNamespaces(options?: StoreListNamespacesOptions): Promise<string[][]>;
  /** Deletes every expired item; returns how many. */
  sweepExpired(): Promise<number>;
  /** Stops the sweep timer and frees what the store opened. */
  close?(): Promise<void>;
}
