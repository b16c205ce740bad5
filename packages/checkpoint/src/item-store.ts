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
import { type StoreCondition, splitStoreFilter } from "./store-conditions.js";
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
   * Live rows whose namespace is `prefix` or lies under it (`""`: all) and that meet every one of
   * `where` (exactly as `matchesStoreFilter` would), newest `updatedAt` first (ties by namespace, then
   * key): those after `page.after` when given, then `page.offset` skipped, at most `page.limit`.
   */
  scan(prefix: string, now: number, options: StoreScanOptions): Promise<StoreRow[]>;
  /** Sets `expiresAt = now + ttlMinutes` for these rows where they have a TTL. */
  refresh(rows: ReadonlyArray<{ namespace: string; key: string }>, now: number): Promise<void>;
  /** The distinct namespaces of live rows that are `prefix` or lie under it (`""`: all). */
  namespaces(now: number, prefix: string): Promise<string[]>;
  /** Deletes rows expired at `now`; returns how many. */
  sweep(now: number): Promise<number>;
  close?(): Promise<void>;
}

/**
 * What {@link StoreBackend.scan} narrows by and which page it reads.
 *
 * @example
 * await backend.scan("memories", Date.now(), { where: [{ field: "kind", op: "eq", value: "tip" }], page: { limit: 10, offset: 0 } });
 */
export interface StoreScanOptions {
  where?: readonly StoreCondition[];
  page: { limit: number; offset: number; after?: StoreCursor };
}

/**
 * A place in the newest-first order of rows: the rows after it are older (or, as old, later by
 * namespace, then key).
 *
 * @example
 * const after: StoreCursor = { updatedAt: row.updatedAt, namespace: row.namespace, key: row.key };
 */
export interface StoreCursor {
  updatedAt: number;
  namespace: string;
  key: string;
}

/** Rows a store reads at a time when part of a filter, or a ranking, is evaluated in this process. */
const CHUNK = 16;

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
 * one place, so the memory, SQLite and Postgres stores behave the same. A search's filter, limit and
 * offset go to the database; what of a filter it cannot evaluate exactly (a list or object compared
 * whole), and the similarity of a ranked search, are evaluated here over rows read a few at a time, so
 * memory stays bounded by the page, never by the namespace.
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
    const { conditions: where, rest } = splitStoreFilter(options.filter);
    const ranked = this.#index !== undefined && options.query !== undefined && options.query !== "";
    let hits: Array<{ row: StoreRow; score?: number }> = [];
    if (ranked) {
      const top = await this.#rankedPage(prefix, now, { where, rest, query: options.query as string }, offset + limit);
      hits = top.slice(offset);
    } else if (!rest) {
      hits = (await this.backend.scan(prefix, now, { where, page: { limit, offset } })).map((row) => ({ row }));
    } else if (limit > 0) {
      let skip = offset;
      for await (const row of this.#matching(prefix, now, where, rest)) {
        if (skip > 0) skip--;
        else if (hits.push({ row }) >= limit) break;
      }
    }
    // only items with a TTL have one to restart: no write at all for a search of items without
    const expiring = hits.filter((h) => h.row.ttlMinutes !== null);
    if (this.#refreshes(options.refreshTtl) && expiring.length > 0) {
      await this.backend.refresh(
        expiring.map((h) => h.row),
        now,
      );
    }
    return hits.map(({ row, score }) => {
      const item = toItem(row);
      if (score !== undefined) (item as SearchItem).score = score; // added to its own object, not spread
      return item;
    });
  }

  async listNamespaces(options: StoreListNamespacesOptions = {}): Promise<string[][]> {
    // the labels before the first "*" narrow in the database (a user's namespaces, say, not everyone's)
    const literal = options.prefix ?? [];
    checkNamespace(literal, "prefix", true);
    const wildcard = literal.indexOf("*");
    const prefix = joinNamespace(wildcard < 0 ? literal : literal.slice(0, wildcard));
    const stored = await this.backend.namespaces(this.#clock.now(), prefix);
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

  /** The live rows under `prefix` meeting `where` and `rest`, newest first, read {@link CHUNK} at a time. */
  async *#matching(
    prefix: string,
    now: number,
    where: readonly StoreCondition[],
    rest: Record<string, unknown> | undefined,
  ): AsyncGenerator<StoreRow> {
    let after: StoreCursor | undefined;
    for (;;) {
      const chunk = await this.backend.scan(prefix, now, {
        where,
        page: { limit: CHUNK, offset: 0, ...(after ? { after } : {}) },
      });
      for (const row of chunk) if (matchesStoreFilter(row.value, rest)) yield row;
      const last = chunk.at(-1);
      if (!last || chunk.length < CHUNK) return;
      after = { updatedAt: last.updatedAt, namespace: last.namespace, key: last.key };
    }
  }

  /**
   * The best `top` matches by similarity (an item scores its best field; ties newest first), then the
   * rows without comparable vectors, newest first. Only the places of the best are held while the
   * rows stream past; the chosen rows are read again at the end.
   */
  async #rankedPage(
    prefix: string,
    now: number,
    search: { where: readonly StoreCondition[]; rest: Record<string, unknown> | undefined; query: string },
    top: number,
  ): Promise<Array<{ row: StoreRow; score?: number }>> {
    const index = this.#index as StoreIndexConfig;
    const [q] = await embedChecked(index, [search.query]);
    const scored: Array<{ ref: StoreCursor; score: number }> = [];
    const unscored: StoreCursor[] = [];
    const byScore = (a: { ref: StoreCursor; score: number }, b: { ref: StoreCursor; score: number }) =>
      b.score - a.score || newestFirst(a.ref, b.ref);
    for await (const row of this.#matching(prefix, now, search.where, search.rest)) {
      const ref = { updatedAt: row.updatedAt, namespace: row.namespace, key: row.key };
      // vectors of another size were made by another index (the config changed): not comparable
      if (!row.vectors || row.vectors.length === 0 || row.vectors.some((v) => v.length !== index.dims)) {
        if (unscored.length < top) unscored.push(ref); // rows come newest first
        continue;
      }
      scored.push({ ref, score: Math.max(...row.vectors.map((v) => cosine(q as number[], v))) });
      if (scored.length > 2 * top + CHUNK) scored.sort(byScore).length = top;
    }
    scored.sort(byScore);
    const chosen = [...scored.slice(0, top), ...unscored.map((ref) => ({ ref }))].slice(0, top);
    const out: Array<{ row: StoreRow; score?: number }> = [];
    for (const { ref, ...score } of chosen) {
      const row = await this.backend.read(ref.namespace, ref.key, now);
      if (row) out.push({ row, ...score });
    }
    return out;
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
export function newestFirst(a: StoreCursor, b: StoreCursor): number {
  if (a.updatedAt !== b.updatedAt) return b.updatedAt - a.updatedAt;
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
