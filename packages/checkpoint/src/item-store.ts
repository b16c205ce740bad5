import { type Clock, systemClock } from "./clock.js";
import { TrellisError } from "./errors.js";
import type {
  SearchItem,
  Store,
  StoreGetOptions,
  StoreIndexConfig,
  StoreItem,
  StoreListNamespacesOptions,
  StorePutOptions,
  StoreSearchOptions,
  StoreTtlConfig,
} from "./store.js";
import { cosine, embedChecked, textsAt } from "./store-embedding.js";
import {
  checkCount,
  checkFilter,
  checkKey,
  checkNamespace,
  checkTtl,
  checkValue,
  joinNamespace,
  listNamespacesOf,
  matchesStoreFilter,
  splitStoredNamespace,
} from "./store-rules.js";

/**
 * One item as a backend stores it: the namespace joined with `.`, times in epoch milliseconds.
 *
 * @example
 * const row: StoreRow = { namespace: "memories.ana", key: "m1", value: { text: "tea" }, createdAt: 0, updatedAt: 0, ttlMinutes: null, expiresAt: null, vectors: null };
 */
export interface StoreRow {
  namespace: string;
  key: string;
  value: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  /** The TTL the item was put with (minutes), for refreshes; null: never expires. */
  ttlMinutes: number | null;
  expiresAt: number | null;
  /** The embeddings of the item's indexed fields; null when not indexed. */
  vectors: number[][] | null;
}

/**
 * What a store keeps in a database: rows and nothing else. {@link ItemStore} holds every rule on top.
 * "Live" rows are those whose `expiresAt` is null or later than `now`. Implement it to put a store on
 * another database; `MemoryStore`, `SqliteStore` and `PostgresStore` are built this way.
 *
 * @example
 * class MyStore extends ItemStore { constructor(options: ItemStoreOptions) { super(new MyBackend(), options); } }
 */
export interface StoreBackend {
  /** The live row, if any. */
  read(namespace: string, key: string, now: number): Promise<StoreRow | undefined>;
  /** Upserts the row; a live row's `createdAt` is kept, an expired one's is replaced. */
  write(row: StoreRow): Promise<void>;
  remove(namespace: string, key: string): Promise<void>;
  /**
   * Live rows whose namespace is `prefix` or lies under it (`""`: all). With `page`: newest `updatedAt`
   * first (ties by namespace, then key), `offset` skipped, at most `limit`; without: every one, any order.
   * `equals` (never given with `page`) may narrow the rows to those whose top-level field equals the
   * string or number: a backend may ignore it, or apply it loosely, but must not drop a row that
   * matches (the store filters again).
   */
  scan(prefix: string, now: number, options?: StoreScanOptions): Promise<StoreRow[]>;
  /** Sets `expiresAt = now + ttlMinutes` for these rows where they have a TTL. */
  refresh(rows: ReadonlyArray<{ namespace: string; key: string }>, now: number): Promise<void>;
  /** The distinct namespaces of live rows. */
  namespaces(now: number): Promise<string[]>;
  /** Deletes rows expired at `now`; returns how many. */
  sweep(now: number): Promise<number>;
  close?(): Promise<void>;
}

/**
 * What {@link StoreBackend.scan} may narrow by.
 *
 * @example
 * await backend.scan("memories", Date.now(), { equals: [["kind", "tip"]] });
 */
export interface StoreScanOptions {
  page?: { limit: number; offset: number };
  equals?: ReadonlyArray<readonly [field: string, value: string | number]>;
}

/**
 * Options every store takes.
 *
 * @example
 * new SqliteStore({ filename: "./memory.db", index: { embed, dims: 256 }, ttl: { defaultTtl: 60 } });
 */
export interface ItemStoreOptions {
  /** Semantic search: how items and queries are embedded. Without it, `query` is ignored. */
  index?: StoreIndexConfig;
  ttl?: StoreTtlConfig;
  clock?: Clock;
}

const MINUTE_MS = 60_000;

/**
 * A {@link Store} over a {@link StoreBackend}: validation, TTL, filters, paging and semantic ranking in
 * one place, so the memory, SQLite and Postgres stores behave the same. Filters and similarity are
 * evaluated in this process over the rows under the namespace prefix (the prefix narrows in the
 * database); a search with neither pages in the database.
 *
 * @example
 * const store = new ItemStore(backend, { ttl: { defaultTtl: 60 } });
 */
export class ItemStore implements Store {
  /** Where the rows live (subclasses reach their own backend through it). */
  protected readonly backend: StoreBackend;
  readonly #index: StoreIndexConfig | undefined;
  readonly #ttl: StoreTtlConfig;
  readonly #clock: Clock;
  #sweepTimer: unknown;
  #closed = false;

  constructor(backend: StoreBackend, options: ItemStoreOptions = {}) {
    this.backend = backend;
    this.#index = options.index;
    this.#ttl = options.ttl ?? {};
    this.#clock = options.clock ?? systemClock;
    checkTtl(this.#ttl.defaultTtl);
    const every = this.#ttl.sweepIntervalMinutes;
    if (every !== undefined) {
      checkTtl(every);
      this.#armSweep(every * MINUTE_MS);
    }
  }

  async get(namespace: readonly string[], key: string, options: StoreGetOptions = {}): Promise<StoreItem | null> {
    checkNamespace(namespace, "namespace");
    checkKey(key);
    const now = this.#clock.now();
    const row = await this.backend.read(joinNamespace(namespace), key, now);
    if (!row) return null;
    if (this.#refreshes(options.refreshTtl) && row.ttlMinutes !== null) {
      await this.backend.refresh([row], now);
    }
    return toItem(row);
  }

  async put(
    namespace: readonly string[],
    key: string,
    value: Record<string, unknown>,
    options?: StorePutOptions | false | string[],
  ): Promise<void> {
    checkNamespace(namespace, "namespace");
    checkKey(key);
    checkValue(value);
    const opts: StorePutOptions = options === false || Array.isArray(options) ? { index: options } : (options ?? {});
    checkTtl(opts.ttl);
    if (opts.index !== undefined) checkIndexFields(opts.index);
    // a copy through JSON: what is stored is data, and later changes to `value` do not reach it
    const stored = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
    const vectors = await this.#vectorsFor(stored, opts.index);
    const now = this.#clock.now();
    const ttl = opts.ttl !== undefined ? opts.ttl : (this.#ttl.defaultTtl ?? null);
    await this.backend.write({
      namespace: joinNamespace(namespace),
      key,
      value: stored,
      createdAt: now,
      updatedAt: now,
      ttlMinutes: ttl,
      expiresAt: ttl === null ? null : Math.round(now + ttl * MINUTE_MS),
      vectors,
    });
  }

  async delete(namespace: readonly string[], key: string): Promise<void> {
    checkNamespace(namespace, "namespace");
    checkKey(key);
    await this.backend.remove(joinNamespace(namespace), key);
  }

  async search(namespacePrefix: readonly string[], options: StoreSearchOptions = {}): Promise<SearchItem[]> {
    checkNamespace(namespacePrefix, "namespace prefix", true);
    checkFilter(options.filter);
    checkCount(options.limit, "limit", 0);
    checkCount(options.offset, "offset", 0);
    if (options.query !== undefined && typeof options.query !== "string") {
      throw new TrellisError("INVALID_ARGUMENT", `query must be a string; got ${JSON.stringify(options.query)}.`);
    }
    const limit = options.limit ?? 10;
    const offset = options.offset ?? 0;
    const prefix = joinNamespace(namespacePrefix);
    const now = this.#clock.now();
    const filter = options.filter && Object.keys(options.filter).length > 0 ? options.filter : undefined;
    const ranked = this.#index !== undefined && options.query !== undefined && options.query !== "";
    let hits: Array<{ row: StoreRow; score?: number }>;
    if (!filter && !ranked) {
      hits = (await this.backend.scan(prefix, now, { page: { limit, offset } })).map((row) => ({ row }));
    } else {
      const equals = filter ? pushableEquals(filter) : [];
      const scanned = await this.backend.scan(prefix, now, equals.length > 0 ? { equals } : {});
      const rows = scanned.filter((r) => matchesStoreFilter(r.value, filter));
      hits = ranked ? await this.#rank(rows, options.query as string) : rows.sort(newestFirst).map((row) => ({ row }));
      hits = hits.slice(offset, offset + limit);
    }
    // only items with a TTL have one to restart: no write at all for a search of items without
    const expiring = hits.filter((h) => h.row.ttlMinutes !== null);
    if (this.#refreshes(options.refreshTtl) && expiring.length > 0) {
      await this.backend.refresh(
        expiring.map((h) => h.row),
        now,
      );
    }
    return hits.map(({ row, score }) => (score === undefined ? toItem(row) : { ...toItem(row), score }));
  }

  async listNamespaces(options: StoreListNamespacesOptions = {}): Promise<string[][]> {
    const stored = await this.backend.namespaces(this.#clock.now());
    return listNamespacesOf(stored.map(splitStoredNamespace), options);
  }

  sweepExpired(): Promise<number> {
    return this.backend.sweep(this.#clock.now());
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#sweepTimer !== undefined) this.#clock.clearTimeout(this.#sweepTimer);
    await this.backend.close?.();
  }

  #refreshes(asked: boolean | undefined): boolean {
    return asked ?? this.#ttl.refreshOnRead ?? true;
  }

  async #vectorsFor(value: Record<string, unknown>, index: false | string[] | undefined): Promise<number[][] | null> {
    if (!this.#index || index === false) return null;
    const texts = textsAt(value, index ?? this.#index.fields ?? ["$"]);
    return texts.length === 0 ? null : embedChecked(this.#index, texts);
  }

  /** Scored rows first (best first; an item scores its best field), then rows without vectors, newest first. */
  async #rank(rows: StoreRow[], query: string): Promise<Array<{ row: StoreRow; score?: number }>> {
    const [q] = await embedChecked(this.#index as StoreIndexConfig, [query]);
    const scored: Array<{ row: StoreRow; score: number }> = [];
    const unscored: StoreRow[] = [];
    const dims = (this.#index as StoreIndexConfig).dims;
    for (const row of rows) {
      // vectors of another size were made by another index (the config changed): not comparable
      if (!row.vectors || row.vectors.length === 0 || row.vectors.some((v) => v.length !== dims)) unscored.push(row);
      else scored.push({ row, score: Math.max(...row.vectors.map((v) => cosine(q as number[], v))) });
    }
    scored.sort((a, b) => b.score - a.score || newestFirst(a.row, b.row));
    return [...scored, ...unscored.sort(newestFirst).map((row) => ({ row }))];
  }

  #armSweep(ms: number): void {
    this.#sweepTimer = this.#clock.setTimeout(() => {
      if (this.#closed) return;
      // a failed sweep (database briefly away) is retried at the next interval
      void this.sweepExpired()
        .catch(() => 0)
        .finally(() => {
          if (!this.#closed) this.#armSweep(ms);
        });
    }, ms);
  }
}

/**
 * The conditions of a filter a database can narrow rows by: a top-level field (a plain name) equal to a
 * string or a finite number, written plainly or as `$eq`.
 */
function pushableEquals(filter: Record<string, unknown>): Array<[string, string | number]> {
  const out: Array<[string, string | number]> = [];
  for (const [field, condition] of Object.entries(filter)) {
    if (!/^[A-Za-z0-9_]{1,64}$/.test(field)) continue;
    const keys = condition !== null && typeof condition === "object" ? Object.keys(condition) : [];
    const value = keys.length === 1 && keys[0] === "$eq" ? (condition as { $eq: unknown }).$eq : condition;
    if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) out.push([field, value]);
  }
  return out;
}

function checkIndexFields(index: unknown): void {
  const ok = index === false || (Array.isArray(index) && index.every((f) => typeof f === "string" && f !== ""));
  let why = ok ? "" : "it is not false or a list of field paths";
  if (ok && index !== false) {
    try {
      textsAt({}, index as string[]);
    } catch (error) {
      why = (error as Error).message;
    }
  }
  if (why) {
    throw new TrellisError(
      "INVALID_ARGUMENT",
      `index must be false (do not embed this item) or a list of field paths like ["text", "notes[*].body"]: ${why}`,
    );
  }
}

function toItem(row: StoreRow): StoreItem {
  return {
    namespace: splitStoredNamespace(row.namespace),
    key: row.key,
    value: row.value,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  };
}

/**
 * The order of unranked results: newest update first, then namespace, then key.
 * @internal
 */
export function newestFirst(a: StoreRow, b: StoreRow): number {
  if (a.updatedAt !== b.updatedAt) return b.updatedAt - a.updatedAt;
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
