import { expect, it } from "vitest";
import { TrellisError } from "../errors.js";
import type { StoreTestContext } from "./store-conformance.js";

/** Rejects with a TrellisError of code INVALID_ARGUMENT. @internal */
export async function expectInvalid(promise: Promise<unknown>, mentions?: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected an INVALID_ARGUMENT error").toBeInstanceOf(TrellisError);
  expect((error as TrellisError).code).toBe("INVALID_ARGUMENT");
  if (mentions) expect((error as TrellisError).message).toMatch(mentions);
}

/** put, get, replace, delete and validation. @internal */
export function storeItemCases(ctx: StoreTestContext): void {
  it("puts and gets an item with its namespace, key, value and times", async () => {
    const store = await ctx.open();
    const value = { text: "likes green tea", tags: ["tea", "ü ✓"], n: 1.5, nested: { ok: true, none: null } };
    await store.put([ctx.root, "ana"], "m1", value);
    const item = await store.get([ctx.root, "ana"], "m1");
    expect(item).toEqual({
      namespace: [ctx.root, "ana"],
      key: "m1",
      value,
      createdAt: new Date(ctx.clock.now()),
      updatedAt: new Date(ctx.clock.now()),
    });
  });

  it("replaces a value whole, keeping createdAt and moving updatedAt", async () => {
    const store = await ctx.open();
    const created = ctx.clock.now();
    await store.put([ctx.root], "k", { a: 1, b: 2 });
    await ctx.clock.advance(5_000);
    await store.put([ctx.root], "k", { a: 3 });
    const item = await store.get([ctx.root], "k");
    expect(item?.value).toEqual({ a: 3 });
    expect(item?.createdAt).toEqual(new Date(created));
    expect(item?.updatedAt).toEqual(new Date(created + 5_000));
  });

  it("answers null for a missing item, and deletes (deleting a missing item does nothing)", async () => {
    const store = await ctx.open();
    expect(await store.get([ctx.root], "nope")).toBeNull();
    await store.put([ctx.root], "k", { a: 1 });
    await store.delete([ctx.root], "k");
    expect(await store.get([ctx.root], "k")).toBeNull();
    await store.delete([ctx.root], "k");
    await store.delete([ctx.root, "never"], "k");
  });

  it("keeps one key apart in different namespaces", async () => {
    const store = await ctx.open();
    await store.put([ctx.root, "a"], "k", { from: "a" });
    await store.put([ctx.root, "b"], "k", { from: "b" });
    await store.delete([ctx.root, "a"], "k");
    expect(await store.get([ctx.root, "a"], "k")).toBeNull();
    expect((await store.get([ctx.root, "b"], "k"))?.value).toEqual({ from: "b" });
  });

  it("stores a copy: changing the object after put, or the item read, changes nothing stored", async () => {
    const store = await ctx.open();
    const value = { list: [1, 2] };
    await store.put([ctx.root], "k", value);
    value.list.push(3);
    const read = await store.get([ctx.root], "k");
    if (!read) throw new Error("the item was not stored");
    (read.value.list as number[]).push(4);
    expect((await store.get([ctx.root], "k"))?.value).toEqual({ list: [1, 2] });
  });

  it("refuses bad namespaces, keys, values and TTLs with INVALID_ARGUMENT saying what to do", async () => {
    const store = await ctx.open();
    await expectInvalid(store.put([], "k", { a: 1 }), /at least one label/);
    await expectInvalid(store.put([ctx.root, "a.b"], "k", { a: 1 }), /without "\."/);
    await expectInvalid(store.put([ctx.root, ""], "k", { a: 1 }), /non-empty/);
    await expectInvalid(store.put([ctx.root], "", { a: 1 }), /key/);
    await expectInvalid(store.put([ctx.root], "k", [1, 2] as unknown as Record<string, unknown>), /JSON object/);
    await expectInvalid(store.put([ctx.root], "k", null as unknown as Record<string, unknown>), /JSON object/);
    await expectInvalid(store.put([ctx.root], "k", { a: 1 }, { ttl: -1 }), /ttl/);
    await expectInvalid(store.put([ctx.root], "k", { a: 1 }, { index: [1] as unknown as string[] }), /index must be/);
    await expectInvalid(store.put([ctx.root], "k", { a: 1 }, ["a[b"]), /index must be/);
    await expectInvalid(store.get([ctx.root, "x.y"], "k"), /without "\."/);
    await expectInvalid(store.search([ctx.root], { limit: -1 }), /limit/);
    expect(await store.get([ctx.root], "k")).toBeNull();
  });

  it("refuses what a database cannot hold — NUL, huge TTLs, long keys, filters of hundreds of fields — saying what to change", async () => {
    const store = await ctx.open();
    await expectInvalid(store.put([ctx.root], "a\u0000b", { a: 1 }), /key may not hold the NUL/);
    await expectInvalid(store.put([ctx.root, "x\u0000"], "k", { a: 1 }), /NUL/);
    await expectInvalid(
      store.put([ctx.root], "k", { a: { b: ["ok", "no\u0000"] } }),
      /NUL character.*value\.a\.b\[1\]/,
    );
    await expectInvalid(store.put([ctx.root], "k", { "bad\u0000key": 1 }), /NUL/);
    await expectInvalid(store.put([ctx.root], "k", { a: 1 }, { ttl: 2e14 }), /ttl.*up to 525600000/);
    await expectInvalid(store.put([ctx.root], "k".repeat(1025), { a: 1 }), /1025 bytes.*1024/);
    await expectInvalid(store.put([ctx.root, "é".repeat(600)], "k", { a: 1 }), /bytes long/);
    await expectInvalid(
      store.put(
        Array.from({ length: 65 }, (_, i) => `l${i}`),
        "k",
        { a: 1 },
      ),
      /65 labels/,
    );
    const wide = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, i]));
    await expectInvalid(store.search([ctx.root], { filter: wide }), /101 fields; use at most 100/);
    await expectInvalid(store.search([ctx.root], { filter: { a: "x\u0000" } }), /NUL/);
    // the most a filter may hold is answered by every backend (SQLite's expression depth included)
    await store.put([ctx.root], "all", Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, i])));
    const widest = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, { $gte: i, $ne: "x" }]));
    expect((await store.search([ctx.root], { filter: widest })).map((i) => i.key)).toEqual(["all"]);
    await store.put([ctx.root], "long", { a: 1 }, { ttl: 525_600_000 });
    expect(await store.get([ctx.root], "long")).not.toBeNull();
  });

  it("takes concurrent puts: every key kept, one value per key (the last write wins)", async () => {
    const store = await ctx.open();
    const peer = (await ctx.reopen(store)) ?? store;
    const writes = [];
    for (let i = 0; i < 20; i++) {
      writes.push((i % 2 ? peer : store).put([ctx.root, "race"], `k${i % 5}`, { i }));
    }
    await Promise.all(writes);
    const items = await store.search([ctx.root, "race"], { limit: 100 });
    expect(items.map((i) => i.key).sort()).toEqual(["k0", "k1", "k2", "k3", "k4"]);
    for (const item of items) expect((item.value.i as number) % 5).toBe(Number(item.key.slice(1)));
  });

  it("keeps items in its storage: a second connection reads them", async () => {
    const store = await ctx.open();
    await store.put([ctx.root, "p"], "k", { kept: true }, { ttl: 10 });
    const peer = await ctx.reopen(store);
    if (!peer) return; // a store without storage of its own (memory) has nothing to reopen
    expect((await peer.get([ctx.root, "p"], "k"))?.value).toEqual({ kept: true });
    await peer.delete([ctx.root, "p"], "k");
    expect(await store.get([ctx.root, "p"], "k")).toBeNull();
  });
}

/** listNamespaces. @internal */
export function storeNamespaceCases(ctx: StoreTestContext): void {
  it("lists the namespaces that hold items, by prefix, suffix, wildcard, depth and page", async () => {
    const store = await ctx.open();
    const r = ctx.root;
    await store.put([r, "users", "ana", "prefs"], "k", { a: 1 });
    await store.put([r, "users", "bo", "prefs"], "k", { a: 1 });
    await store.put([r, "users", "bo", "facts"], "k", { a: 1 });
    await store.put([r, "docs"], "k", { a: 1 });
    expect(await store.listNamespaces({ prefix: [r] })).toEqual([
      [r, "docs"],
      [r, "users", "ana", "prefs"],
      [r, "users", "bo", "facts"],
      [r, "users", "bo", "prefs"],
    ]);
    expect(await store.listNamespaces({ prefix: [r], suffix: ["prefs"] })).toEqual([
      [r, "users", "ana", "prefs"],
      [r, "users", "bo", "prefs"],
    ]);
    expect(await store.listNamespaces({ prefix: [r, "users", "*", "facts"] })).toEqual([[r, "users", "bo", "facts"]]);
    expect(await store.listNamespaces({ prefix: [r], maxDepth: 2 })).toEqual([
      [r, "docs"],
      [r, "users"],
    ]);
    expect(await store.listNamespaces({ prefix: [r], limit: 2, offset: 1 })).toEqual([
      [r, "users", "ana", "prefs"],
      [r, "users", "bo", "facts"],
    ]);
    await store.delete([r, "docs"], "k");
    expect(await store.listNamespaces({ prefix: [r], maxDepth: 2 })).toEqual([[r, "users"]]);
  });

  it("refuses a bad prefix or depth with INVALID_ARGUMENT", async () => {
    const store = await ctx.open();
    await expectInvalid(store.listNamespaces({ prefix: ["a.b"] }), /without "\."/);
    await expectInvalid(store.listNamespaces({ maxDepth: 0 }), /maxDepth/);
  });
}
