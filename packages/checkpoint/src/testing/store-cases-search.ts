import { expect, it } from "vitest";
import type { Store } from "../store.js";
import { matchesStoreFilter } from "../store-rules.js";
import { expectInvalid } from "./store-cases-items.js";
import { type StoreTestContext, TEST_EMBEDDING_DIMS, testEmbedding } from "./store-conformance.js";

const keys = (items: ReadonlyArray<{ key: string }>) => items.map((i) => i.key);

async function putEach(store: Store, ctx: StoreTestContext, ns: string[], values: Record<string, object>) {
  for (const [key, value] of Object.entries(values)) {
    await store.put(ns, key, value as Record<string, unknown>);
    await ctx.clock.advance(1_000);
  }
}

/** search: prefixes, order, filters, pages. @internal */
export function storeSearchCases(ctx: StoreTestContext): void {
  it("finds items under a prefix label by label, newest update first", async () => {
    const store = await ctx.open();
    const r = ctx.root;
    await store.put([r, "a"], "1", { n: 1, root: r });
    await ctx.clock.advance(1_000);
    await store.put([r, "a", "deep"], "2", { n: 2, root: r });
    await ctx.clock.advance(1_000);
    await store.put([r, "ab"], "3", { n: 3, root: r });
    expect(keys(await store.search([r, "a"]))).toEqual(["2", "1"]);
    expect(keys(await store.search([r]))).toEqual(["3", "2", "1"]);
    const [hit] = await store.search([r, "a", "deep"]);
    expect(hit).toMatchObject({ namespace: [r, "a", "deep"], key: "2", value: { n: 2, root: r } });
    expect(hit?.score).toBeUndefined();
    // [] is every namespace (other tests' items too, in a shared database): this test's by their marker
    expect(keys(await store.search([], { filter: { root: r } }))).toEqual(["3", "2", "1"]);
  });

  it("pages with limit (default 10) and offset, with no item twice", async () => {
    const store = await ctx.open();
    const values: Record<string, object> = {};
    for (let i = 0; i < 13; i++) values[`k${String(i).padStart(2, "0")}`] = { i };
    await putEach(store, ctx, [ctx.root], values);
    expect(await store.search([ctx.root])).toHaveLength(10);
    const pages = [
      ...(await store.search([ctx.root], { limit: 5, offset: 0 })),
      ...(await store.search([ctx.root], { limit: 5, offset: 5 })),
      ...(await store.search([ctx.root], { limit: 5, offset: 10 })),
    ];
    expect(keys(pages)).toEqual(Object.keys(values).reverse());
    expect(await store.search([ctx.root], { offset: 13 })).toEqual([]);
  });

  it("filters by equality on value fields, whole objects and lists included", async () => {
    const store = await ctx.open();
    await putEach(store, ctx, [ctx.root], {
      a: { kind: "tip", stars: 5, meta: { lang: "en" }, tags: ["x", "y"] },
      b: { kind: "tip", stars: 2, meta: { lang: "nl" }, tags: ["x"] },
      c: { kind: "fact", stars: 4 },
    });
    expect(keys(await store.search([ctx.root], { filter: { kind: "tip" } }))).toEqual(["b", "a"]);
    expect(keys(await store.search([ctx.root], { filter: { meta: { lang: "en" } } }))).toEqual(["a"]);
    expect(keys(await store.search([ctx.root], { filter: { tags: ["x"] } }))).toEqual(["b"]);
    expect(keys(await store.search([ctx.root], { filter: { kind: "tip", stars: 2 } }))).toEqual(["b"]);
    expect(keys(await store.search([ctx.root], { filter: { missing: "x" } }))).toEqual([]);
  });

  it("filters with $eq, $ne, $gt, $gte, $lt, $lte, and pages the filtered items", async () => {
    const store = await ctx.open();
    await putEach(store, ctx, [ctx.root], { a: { n: 1 }, b: { n: 2 }, c: { n: 3 }, d: { n: "3" }, e: {} });
    const f = async (filter: Record<string, unknown>, page = {}) =>
      keys(await store.search([ctx.root], { filter, ...page }));
    expect(await f({ n: { $eq: 3 } })).toEqual(["c"]);
    expect(await f({ n: { $ne: 3 } })).toEqual(["e", "d", "b", "a"]);
    expect(await f({ n: { $gt: 1 } })).toEqual(["c", "b"]);
    expect(await f({ n: { $gte: 1, $lt: 3 } })).toEqual(["b", "a"]);
    expect(await f({ n: { $lte: 2 } })).toEqual(["b", "a"]);
    expect(await f({ n: { $gt: "2" } })).toEqual(["d"]);
    expect(await f({ n: { $gte: 1 } }, { limit: 1, offset: 1 })).toEqual(["b"]);
  });

  it("matches filters exactly whatever the database narrows by: types, odd field names, awkward strings", async () => {
    const store = await ctx.open();
    await putEach(store, ctx, [ctx.root], {
      bool: { flag: true, kind: "x" },
      one: { flag: 1, kind: "x" },
      text: { flag: "1", kind: "x" },
      dotted: { "a.b": 1, kind: "y" },
      nested: { a: { b: 1 }, kind: "y" },
      weird: { kind: "z", note: "a\u0001b", "we ird": "é ✓" },
    });
    const f = async (filter: Record<string, unknown>) => keys(await store.search([ctx.root], { filter }));
    expect(await f({ flag: 1 })).toEqual(["one"]);
    expect(await f({ flag: { $eq: 1 }, kind: "x" })).toEqual(["one"]);
    expect(await f({ flag: "1" })).toEqual(["text"]);
    expect(await f({ flag: true })).toEqual(["bool"]);
    expect(await f({ "a.b": 1 })).toEqual(["dotted"]);
    expect(await f({ a: { b: 1 } })).toEqual(["nested"]);
    expect(await f({ kind: "z" })).toEqual(["weird"]);
    expect(await f({ "we ird": "é ✓" })).toEqual(["weird"]);
    expect(await f({ note: "a\u0001b", missing: { $ne: null }, flag: { $ne: true } })).toEqual(["weird"]);
    expect(await f({ flag: null })).toEqual([]); // a missing field is not null
    expect((await store.get([ctx.root], "weird"))?.value.note).toBe("a\u0001b");
  });

  it("pages a filter the database evaluates only in part (lists, objects) across many rows, as the filter says", async () => {
    const store = await ctx.open();
    const values: Record<string, Record<string, unknown>> = {};
    for (let i = 0; i < 45; i++) {
      values[`k${String(i).padStart(2, "0")}`] = {
        n: i,
        tags: i % 3 === 0 ? ["a"] : ["b"],
        meta: { even: i % 2 === 0 },
        name: i % 5 === 0 ? `\u{1F600}${i}` : `\uE000${i}`,
      };
    }
    await putEach(store, ctx, [ctx.root, "many"], values);
    const newest = Object.keys(values).reverse();
    const expected = (filter: Record<string, unknown>) =>
      newest.filter((k) => matchesStoreFilter(values[k] ?? {}, filter));
    const filters: Array<Record<string, unknown>> = [
      { tags: ["a"] },
      { tags: ["a"], n: { $gte: 6 } },
      { meta: { even: true }, n: { $lt: 40, $ne: 12 } },
      { tags: { $ne: ["b"] }, meta: { $eq: { even: false } } },
      { name: { $gt: "\uE000" } },
      { name: { $lt: "\uE001" }, n: { $gt: 3 } },
    ];
    for (const filter of filters) {
      const all = expected(filter);
      expect(keys(await store.search([ctx.root, "many"], { filter, limit: 100 }))).toEqual(all);
      for (const [limit, offset] of [
        [1, 0],
        [4, 3],
        [5, 11],
        [20, 14],
      ] as const) {
        const page = keys(await store.search([ctx.root, "many"], { filter, limit, offset }));
        expect({ filter, limit, offset, page }).toEqual({
          filter,
          limit,
          offset,
          page: all.slice(offset, offset + limit),
        });
      }
    }
  });

  it("refuses an unknown filter operator with INVALID_ARGUMENT naming it", async () => {
    const store = await ctx.open();
    await expectInvalid(store.search([ctx.root], { filter: { n: { $gtx: 1 } } }), /\$gtx/);
  });
}

/** TTL: expiry, refresh on read, sweeping. @internal */
export function storeTtlCases(ctx: StoreTestContext): void {
  const minutes = (n: number) => ctx.clock.advance(n * 60_000);

  it("hides an item once its TTL (minutes) passed, and sweeping deletes it", async () => {
    const store = await ctx.open();
    await store.put([ctx.root, "t"], "short", { a: 1 }, { ttl: 1 });
    await store.put([ctx.root, "t"], "long", { a: 2 }, { ttl: 60 });
    await store.put([ctx.root, "t"], "never", { a: 3 });
    await minutes(2);
    expect(await store.get([ctx.root, "t"], "short", { refreshTtl: false })).toBeNull();
    expect(keys(await store.search([ctx.root], { refreshTtl: false }))).toEqual(["long", "never"]);
    await store.put([ctx.root, "gone"], "x", { a: 1 }, { ttl: 1 });
    await minutes(2);
    expect(await store.listNamespaces({ prefix: [ctx.root] })).toEqual([[ctx.root, "t"]]);
    expect(await store.sweepExpired()).toBeGreaterThanOrEqual(2);
    expect(keys(await store.search([ctx.root], { refreshTtl: false }))).toEqual(["long", "never"]);
  });

  it("restarts the TTL on get and search unless refreshTtl is false", async () => {
    const store = await ctx.open();
    await store.put([ctx.root], "g", { a: 1 }, { ttl: 10 });
    await store.put([ctx.root], "s", { a: 2 }, { ttl: 10 });
    await store.put([ctx.root], "no", { a: 3 }, { ttl: 10 });
    await minutes(8);
    await store.get([ctx.root], "g");
    await store.search([ctx.root], { filter: { a: 2 } });
    await store.get([ctx.root], "no", { refreshTtl: false });
    await minutes(8); // 16 minutes after the put, 8 after the reads
    expect(await store.get([ctx.root], "no")).toBeNull();
    expect((await store.get([ctx.root], "g", { refreshTtl: false }))?.value).toEqual({ a: 1 });
    expect((await store.get([ctx.root], "s", { refreshTtl: false }))?.value).toEqual({ a: 2 });
  });

  it("applies the store's defaultTtl and refreshOnRead; ttl null keeps an item for good", async () => {
    const store = await ctx.open({ ttl: { defaultTtl: 5, refreshOnRead: false } });
    await store.put([ctx.root], "default", { a: 1 });
    await store.put([ctx.root], "forever", { a: 2 }, { ttl: null });
    await minutes(4);
    await store.get([ctx.root], "default"); // does not refresh: refreshOnRead is false
    await minutes(2);
    expect(await store.get([ctx.root], "default")).toBeNull();
    expect(await store.get([ctx.root], "forever")).not.toBeNull();
  });

  it("gives an expired item put again a new createdAt", async () => {
    const store = await ctx.open();
    await store.put([ctx.root], "k", { a: 1 }, { ttl: 1 });
    await minutes(2);
    await store.put([ctx.root], "k", { a: 2 });
    expect((await store.get([ctx.root], "k"))?.createdAt).toEqual(new Date(ctx.clock.now()));
  });
}

/** Semantic search with an index. @internal */
export function storeSemanticCases(ctx: StoreTestContext): void {
  const index = { embed: testEmbedding, dims: TEST_EMBEDDING_DIMS, fields: ["text"] };

  it("ranks by similarity to the query, best first, with a score", async () => {
    const store = await ctx.open({ index });
    await putEach(store, ctx, [ctx.root, "m"], {
      tea: { text: "ana drinks green tea every morning" },
      bike: { text: "bo rides a bike to work" },
      coffee: { text: "ana dislikes coffee" },
    });
    const hits = await store.search([ctx.root], { query: "what tea does ana drink", limit: 3 });
    expect(keys(hits)).toEqual(["tea", "coffee", "bike"]);
    const scores = hits.map((h) => h.score as number);
    expect(scores[0]).toBeGreaterThan(scores[1] as number);
    expect(scores[1]).toBeGreaterThan(scores[2] as number);
    expect(scores[0]).toBeLessThanOrEqual(1);
    expect(keys(await store.search([ctx.root], { query: "tea ana", limit: 1, offset: 1 }))).toEqual(["coffee"]);
  });

  it("combines a query with a filter; items put with index false come after the ranked ones", async () => {
    const store = await ctx.open({ index });
    await store.put([ctx.root], "a", { text: "green tea", kind: "drink" });
    await store.put([ctx.root], "b", { text: "green tea", kind: "plant" });
    await store.put([ctx.root], "c", { text: "green tea", kind: "drink" }, { index: false });
    await store.put([ctx.root], "d", { text: "x", other: "green tea", kind: "drink" }, ["other"]);
    const hits = await store.search([ctx.root], { query: "green tea", filter: { kind: "drink" } });
    expect(keys(hits)).toEqual(["a", "d", "c"]);
    expect(hits[0]?.score).toBeCloseTo(1, 6);
    expect(hits[2]?.score).toBeUndefined();
  });

  it("ranks many rows with a filter and pages the ranking: best first, unindexed items after, no item twice", async () => {
    const store = await ctx.open({ index });
    const words = ["green tea", "black tea", "a bike ride", "tea garden", "coffee beans"];
    const values: Record<string, Record<string, unknown>> = {};
    for (let i = 0; i < 40; i++)
      values[`r${String(i).padStart(2, "0")}`] = {
        text: `${words[i % 5]} ${i}`,
        kind: i % 2 ? "odd" : "even",
        tags: [i % 4],
      };
    await putEach(store, ctx, [ctx.root, "rank"], values);
    await store.put([ctx.root, "rank"], "plain", { text: "green tea", kind: "even", tags: [0] }, { index: false });
    const filter = { kind: "even", tags: [0] };
    const whole = await store.search([ctx.root, "rank"], { query: "green tea", filter, limit: 100 });
    expect(keys(whole).sort()).toEqual(
      [...Object.keys(values).filter((k) => matchesStoreFilter(values[k] ?? {}, filter)), "plain"].sort(),
    );
    expect(whole.at(-1)?.key).toBe("plain");
    const scores = whole.slice(0, -1).map((h) => h.score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const paged = [];
    for (let offset = 0; offset < whole.length; offset += 3) {
      paged.push(...(await store.search([ctx.root, "rank"], { query: "green tea", filter, limit: 3, offset })));
    }
    expect(keys(paged)).toEqual(keys(whole));
  });

  it("ignores the query without an index, as LangGraph does", async () => {
    const store = await ctx.open();
    await store.put([ctx.root], "a", { text: "tea" });
    const hits = await store.search([ctx.root], { query: "tea" });
    expect(keys(hits)).toEqual(["a"]);
    expect(hits[0]?.score).toBeUndefined();
  });
}
