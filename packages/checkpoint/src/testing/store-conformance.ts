import { randomBytes } from "node:crypto";
import { afterEach, describe } from "vitest";
import { ManualClock } from "../clock.js";
import type { Store, StoreIndexConfig, StoreTtlConfig } from "../store.js";
import { SUITE_EPOCH_MS } from "./conformance.js";
import { storeItemCases, storeNamespaceCases } from "./store-cases-items.js";
import { storeSearchCases, storeSemanticCases, storeTtlCases } from "./store-cases-search.js";

/**
 * What {@link describeStoreConformance} needs to know about a store.
 *
 * @example
 * const options: StoreConformanceOptions<SqliteStore> = {
 *   name: "SqliteStore",
 *   create: (o) => new SqliteStore({ filename: ":memory:", ...o }),
 * };
 */
export interface StoreConformanceOptions<S extends Store = Store> {
  /** Shown in the test names. */
  name: string;
  /**
   * A store for one test, reading time from `clock`, with the `index` and `ttl` the test asks for.
   * Stores of one suite may share storage: every test writes under a namespace root of its own.
   */
  create(context: { clock: ManualClock; index?: StoreIndexConfig; ttl?: StoreTtlConfig }): S | Promise<S>;
  /** Releases what `create` made. Defaults to `store.close()`. */
  destroy?(store: S): void | Promise<void>;
  /** Opens a second store on the same storage (another connection), to check that items persist. */
  reopen?(store: S, context: { clock: ManualClock }): Store | Promise<Store>;
  /** Skip the whole suite, e.g. when the service is unreachable (see `requireService`). */
  skip?: boolean;
}

/**
 * What each case reaches through.
 *
 * @example
 * const store = await ctx.open(); await store.put([ctx.root, "a"], "k", { n: 1 });
 */
export interface StoreTestContext {
  /** A fresh store on a fresh manual clock (closed after the test). */
  open(extra?: { index?: StoreIndexConfig; ttl?: StoreTtlConfig }): Promise<Store>;
  /** A second store on the storage of `store`, or undefined when the suite has no `reopen`. */
  reopen(store: Store): Promise<Store | undefined>;
  /** The clock of the stores this test opened. */
  readonly clock: ManualClock;
  /** A namespace label no other test uses: put everything under it. */
  readonly root: string;
}

/**
 * Dimensions of {@link testEmbedding}'s vectors.
 *
 * @example
 * const index = { embed: testEmbedding, dims: TEST_EMBEDDING_DIMS };
 */
export const TEST_EMBEDDING_DIMS = 256;

/**
 * A deterministic bag-of-words embedding for the suite: each lower-cased word adds 1 to a bucket picked
 * by its hash. Texts sharing words score higher. (For an application's offline embedding use
 * `hashedBagOfWords` from `@trellis/models`.)
 *
 * @example
 * await testEmbedding(["green tea", "black coffee"]);
 */
export async function testEmbedding(texts: string[]): Promise<number[][]> {
  return texts.map((text) => {
    const v = new Array<number>(TEST_EMBEDDING_DIMS).fill(0);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      let h = 2166136261;
      for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619) >>> 0;
      v[h % TEST_EMBEDDING_DIMS] = (v[h % TEST_EMBEDDING_DIMS] ?? 0) + 1;
    }
    return v;
  });
}

/**
 * Declares the conformance suite for a {@link Store}: items, namespaces and their listing, filters with
 * operators, pagination, TTL on a manual clock (expiry, refresh on read, sweeping), semantic search with
 * a deterministic embedding, validation of bad input, and persistence across connections. Every store
 * must pass it.
 *
 * @example
 * import { describeStoreConformance } from "@trellis/checkpoint/testing";
 * import { MemoryStore } from "@trellis/checkpoint";
 *
 * describeStoreConformance({ name: "MemoryStore", create: (o) => new MemoryStore(o) });
 */
export function describeStoreConformance<S extends Store>(options: StoreConformanceOptions<S>): void {
  const describeIt = options.skip ? describe.skip : describe;
  describeIt(`${options.name} — store conformance`, () => {
    const opened: Array<{ store: Store; own: boolean }> = [];
    let clock = new ManualClock(SUITE_EPOCH_MS);
    let root = newRoot();

    afterEach(async () => {
      for (const { store, own } of opened.splice(0).reverse()) {
        if (own && options.destroy) await options.destroy(store as S);
        else await store.close?.();
      }
      clock = new ManualClock(SUITE_EPOCH_MS);
      root = newRoot();
    });

    const ctx: StoreTestContext = {
      async open(extra = {}) {
        const store = await options.create({ clock, ...extra });
        opened.push({ store, own: true });
        return store;
      },
      async reopen(store) {
        if (!options.reopen) return undefined;
        const peer = await options.reopen(store as S, { clock });
        opened.push({ store: peer, own: false });
        return peer;
      },
      get clock() {
        return clock;
      },
      get root() {
        return root;
      },
    };

    describe("items", () => storeItemCases(ctx));
    describe("namespaces", () => storeNamespaceCases(ctx));
    describe("search, filters and pages", () => storeSearchCases(ctx));
    describe("ttl", () => storeTtlCases(ctx));
    describe("semantic search", () => storeSemanticCases(ctx));
  });
}

function newRoot(): string {
  return `s${randomBytes(6).toString("hex")}`;
}
