import {
  ItemStore,
  type ItemStoreOptions,
  newestFirst,
  type StoreBackend,
  type StoreRow,
  type StoreScanOptions,
} from "./item-store.js";
import { conditionFilter } from "./store-conditions.js";
import { matchesStoreFilter, underPrefix } from "./store-rules.js";

/**
 * Options of {@link MemoryStore}.
 *
 * @example
 * const options: MemoryStoreOptions = { ttl: { defaultTtl: 60, refreshOnRead: true } };
 * const store = new MemoryStore(options);
 */
export type MemoryStoreOptions = ItemStoreOptions;

const live = (row: StoreRow, now: number) => row.expiresAt === null || row.expiresAt > now;

class MemoryBackend implements StoreBackend {
  /** `namespace \0 key` → row; values are stored as JSON text so reads return copies. */
  readonly #rows = new Map<string, { row: StoreRow; json: string }>();

  async read(namespace: string, key: string, now: number): Promise<StoreRow | undefined> {
    const entry = this.#rows.get(`${namespace}\u0000${key}`);
    return entry && live(entry.row, now) ? copy(entry) : undefined;
  }

  async write(row: StoreRow): Promise<void> {
    const id = `${row.namespace}\u0000${row.key}`;
    const old = this.#rows.get(id)?.row;
    const createdAt = old && live(old, row.updatedAt) ? old.createdAt : row.createdAt;
    this.#rows.set(id, { row: { ...row, createdAt }, json: JSON.stringify(row.value) });
  }

  async remove(namespace: string, key: string): Promise<void> {
    this.#rows.delete(`${namespace}\u0000${key}`);
  }

  async scan(prefix: string, now: number, options: StoreScanOptions): Promise<StoreRow[]> {
    const { page, where = [] } = options;
    const filters = where.map(conditionFilter);
    const rows: StoreRow[] = [];
    for (const entry of this.#rows.values()) {
      const { row } = entry;
      if (!live(row, now) || !underPrefix(row.namespace, prefix)) continue;
      if (page.after && newestFirst(row, page.after) <= 0) continue;
      if (filters.every((f) => matchesStoreFilter(row.value, f))) rows.push(row);
    }
    return rows
      .sort(newestFirst)
      .slice(page.offset, page.offset + page.limit)
      .map((row) => copy(this.#rows.get(`${row.namespace}\u0000${row.key}`) as { row: StoreRow; json: string }));
  }

  async refresh(rows: ReadonlyArray<{ namespace: string; key: string }>, now: number): Promise<void> {
    for (const { namespace, key } of rows) {
      const entry = this.#rows.get(`${namespace}\u0000${key}`);
      if (entry?.row.ttlMinutes != null && live(entry.row, now)) {
        entry.row.expiresAt = Math.round(now + entry.row.ttlMinutes * 60_000);
      }
    }
  }

  async namespaces(now: number, prefix: string): Promise<string[]> {
    const out = new Set<string>();
    for (const { row } of this.#rows.values()) {
      if (live(row, now) && underPrefix(row.namespace, prefix)) out.add(row.namespace);
    }
    return [...out];
  }

  async sweep(now: number): Promise<number> {
    let n = 0;
    for (const [id, { row }] of this.#rows) {
      if (!live(row, now)) {
        this.#rows.delete(id);
        n++;
      }
    }
    return n;
  }
}

function copy(entry: { row: StoreRow; json: string }): StoreRow {
  return { ...entry.row, value: JSON.parse(entry.json) as Record<string, unknown> };
}

/**
 * A store in this process's memory, for tests and short-lived processes (LangGraph's `InMemoryStore`).
 * Values are copied on the way in and out.
 *
 * @example
 * import { MemoryStore } from "@trellis/checkpoint";
 *
 * const store = new MemoryStore();
 * const graph = builder.compile({ store });
 * // in a node: await ctx.store?.put(["memories", userId], "m1", { text: "likes tea" });
 */
export class MemoryStore extends ItemStore {
  constructor(options: MemoryStoreOptions = {}) {
    super(new MemoryBackend(), options);
  }
}
