/**
 * The Store API cases every storage runs, driven with the official SDK `Client` (`client.store.*`):
 * items, search with filters and pages, namespaces, TTL, persistence across a restart, a graph node
 * writing with `ctx.store`, semantic search, bad input, and per-user scoping with auth on.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { TrellisConfig } from "../config/config.js";
import { createServer, type TrellisServer } from "../server.js";
import { eventually, PACKAGE_DIR } from "./harness.js";

/** Where a backend's servers keep their data: the same place for every server until disposed. */
export interface StoreBackend {
  label: string;
  saver: NonNullable<TrellisConfig["saver"]>;
  skip?: boolean;
  dispose(): Promise<void>;
}

const GRAPHS: TrellisConfig["graphs"] = { memory: { module: "./src/test/fixture-store.ts", graph: "memoryGraph" } };

const CREDENTIALS = [
  { user: "ana", apiKey: "ana-key" },
  { user: "bo", apiKey: "bo-key" },
];

async function serve(backend: StoreBackend, overrides: Partial<TrellisConfig> = {}) {
  const server = await createServer(
    { graphs: GRAPHS, saver: backend.saver, baseDir: PACKAGE_DIR, ...overrides },
    { env: {} },
  );
  const { url } = await server.listen(0);
  return { server, url, client: new Client({ apiUrl: url, apiKey: null }) };
}

/** A raw request, for what the SDK refuses to send (labels with ".") or cannot express (no namespace). */
async function raw(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as { error?: string; message?: string } };
}

/** Declares the Store API cases for one storage. */
export function describeStoreApi(backend: StoreBackend): void {
  describe.skipIf(backend.skip)(`Store API over the SDK Client (${backend.label})`, () => {
    const servers: TrellisServer[] = [];
    const open = async (overrides: Partial<TrellisConfig> = {}) => {
      const s = await serve(backend, overrides);
      servers.push(s.server);
      return s;
    };
    // one server at a time on a storage (a SQLite file takes one serving process)
    afterEach(async () => {
      for (const s of servers.splice(0)) await s.close();
    });
    afterAll(() => backend.dispose());

    it("puts, gets, replaces and deletes items (putItem/getItem/deleteItem)", async () => {
      const { client, url } = await open();
      const info = (await (await fetch(`${url}/info`)).json()) as { flags: { store: boolean } };
      expect(info.flags.store).toBe(true);
      await client.store.putItem(["items", "ana"], "m1", { text: "likes tea", n: 1 });
      const item = await client.store.getItem(["items", "ana"], "m1");
      expect(item).toMatchObject({ namespace: ["items", "ana"], key: "m1", value: { text: "likes tea", n: 1 } });
      expect(Date.parse(item?.createdAt as string)).not.toBeNaN();
      expect(item?.updatedAt).toBe((item as unknown as { updated_at: string }).updated_at);
      await client.store.putItem(["items", "ana"], "m1", { text: "likes coffee" });
      const replaced = await client.store.getItem(["items", "ana"], "m1");
      expect(replaced?.value).toEqual({ text: "likes coffee" });
      expect(replaced?.createdAt).toBe(item?.createdAt);
      expect(await client.store.getItem(["items", "ana"], "nope")).toBeNull();
      await client.store.deleteItem(["items", "ana"], "m1");
      expect(await client.store.getItem(["items", "ana"], "m1")).toBeNull();
    });

    it("searches by namespace prefix with filters, operators, limit and offset (searchItems)", async () => {
      const { client } = await open();
      for (const [key, stars] of [
        ["a", 5],
        ["b", 2],
        ["c", 4],
      ] as const) {
        await client.store.putItem(["search", "tips"], key, { kind: "tip", stars });
      }
      await client.store.putItem(["search", "facts"], "f", { kind: "fact", stars: 3 });
      await client.store.putItem(["searchx"], "other", { kind: "tip", stars: 5 });
      const all = await client.store.searchItems(["search"], { limit: 10 });
      expect(all.items.map((i) => i.key).sort()).toEqual(["a", "b", "c", "f"]);
      const good = await client.store.searchItems(["search"], { filter: { kind: "tip", stars: { $gte: 4 } } });
      expect(good.items.map((i) => i.key).sort()).toEqual(["a", "c"]);
      const pages = [
        ...(await client.store.searchItems(["search", "tips"], { limit: 2, offset: 0 })).items,
        ...(await client.store.searchItems(["search", "tips"], { limit: 2, offset: 2 })).items,
      ];
      expect(pages.map((i) => i.key).sort()).toEqual(["a", "b", "c"]);
      expect(pages[0]?.createdAt).toEqual(expect.any(String));
      expect(pages[0]?.score).toBeUndefined();
    });

    it("lists namespaces by prefix, suffix, depth and page (listNamespaces)", async () => {
      const { client } = await open();
      await client.store.putItem(["ns", "users", "ana", "prefs"], "k", { a: 1 });
      await client.store.putItem(["ns", "users", "bo", "prefs"], "k", { a: 1 });
      await client.store.putItem(["ns", "docs"], "k", { a: 1 });
      expect((await client.store.listNamespaces({ prefix: ["ns"] })).namespaces).toEqual([
        ["ns", "docs"],
        ["ns", "users", "ana", "prefs"],
        ["ns", "users", "bo", "prefs"],
      ]);
      expect((await client.store.listNamespaces({ prefix: ["ns"], maxDepth: 2 })).namespaces).toEqual([
        ["ns", "docs"],
        ["ns", "users"],
      ]);
      expect(
        (await client.store.listNamespaces({ prefix: ["ns", "users"], suffix: ["prefs"], limit: 1, offset: 1 }))
          .namespaces,
      ).toEqual([["ns", "users", "bo", "prefs"]]);
    });

    it("expires an item after its ttl (minutes) and refreshes on read only when asked", async () => {
      const { client } = await open();
      await client.store.putItem(["ttl"], "short", { a: 1 }, { ttl: 0.002 }); // 120 ms
      await client.store.putItem(["ttl"], "kept", { a: 2 }, { ttl: null });
      expect(await client.store.getItem(["ttl"], "short", { refreshTtl: false })).not.toBeUndefined();
      await eventually(async () => (await client.store.getItem(["ttl"], "short", { refreshTtl: false })) === null);
      expect((await client.store.searchItems(["ttl"])).items.map((i) => i.key)).toEqual(["kept"]);
    });

    it("keeps items across a restart of the server on the same storage", async () => {
      const first = await open();
      await first.client.store.putItem(["persist"], "k", { survives: true });
      await first.server.close();
      servers.splice(servers.indexOf(first.server), 1);
      const second = await open();
      expect((await second.client.store.getItem(["persist"], "k"))?.value).toEqual({ survives: true });
    });

    it("gives the graphs it runs the same store as ctx.store: a node writes, the SDK reads it back", async () => {
      const { client } = await open();
      const thread = await client.threads.create();
      const out = (await client.runs.wait(thread.thread_id, "memory", { input: { text: "from a node" } })) as {
        recalled: string[];
      };
      expect(out.recalled).toContain("from a node");
      expect((await client.store.getItem(["memories"], "last"))?.value).toEqual({ text: "from a node", by: "graph" });
      // every stream mode carries the run (its config holds the store: nothing may try to serialize it)
      const events: string[] = [];
      for await (const part of client.runs.stream(thread.thread_id, "memory", {
        input: { text: "streamed" },
        streamMode: ["values", "updates", "debug", "tasks", "checkpoints", "events", "custom"],
      })) {
        events.push(part.event);
      }
      expect(events).not.toContain("error");
      expect((await client.store.getItem(["memories"], "last"))?.value).toEqual({ text: "streamed", by: "graph" });
    });

    it("ranks by similarity with a score when the config gives an index (semantic search)", async () => {
      const { client } = await open({
        store: { index: { embed: "./src/test/fixture-store.ts:embed", dims: 256, fields: ["text"] } },
      });
      await client.store.putItem(["sem"], "tea", { text: "ana drinks green tea every morning" });
      await client.store.putItem(["sem"], "bike", { text: "bo rides a bike to work" });
      await client.store.putItem(["sem"], "plain", { text: "green tea" }, { index: false });
      await client.store.putItem(["sem2"], "other", { text: "x", note: "green tea" }, { index: ["note"] });
      const [other] = (await client.store.searchItems(["sem2"], { query: "green tea" })).items;
      expect(other?.score).toBeCloseTo(1, 6);
      const { items } = await client.store.searchItems(["sem"], { query: "which tea does ana drink", limit: 3 });
      expect(items.map((i) => i.key)).toEqual(["tea", "bike", "plain"]);
      expect(items[0]?.score).toBeGreaterThan(items[1]?.score as number);
      expect(items[2]?.score).toBeUndefined();
    });

    it("answers bad input with a 400 INVALID_ARGUMENT saying what to do", async () => {
      const { url } = await open();
      const cases: Array<[string, string, unknown, RegExp]> = [
        ["PUT", "/store/items", { key: "k", value: { a: 1 } }, /"namespace" is required/],
        ["PUT", "/store/items", { namespace: ["a"], key: "k", value: [1, 2] }, /"value" must be a JSON object/],
        ["PUT", "/store/items", { namespace: ["a.b"], key: "k", value: { a: 1 } }, /without "\."/],
        ["PUT", "/store/items", { namespace: ["a"], value: { a: 1 } }, /"key" is required/],
        ["PUT", "/store/items", { namespace: ["a"], key: "k", value: { a: 1 }, ttl: -5 }, /ttl/],
        ["PUT", "/store/items", { namespace: ["a"], key: "k", value: { a: 1 }, index: [1] }, /index must be/],
        ["POST", "/store/items/search", { namespace_prefix: ["a"], filter: { n: { $like: 1 } } }, /\$like/],
        ["POST", "/store/items/search", { limit: 5000 }, /limit/],
        ["POST", "/store/namespaces", { max_depth: 0 }, /max_depth/],
        ["DELETE", "/store/items", { key: "k" }, /"namespace" is required/],
        ["GET", "/store/items?namespace=a", undefined, /"key"/],
      ];
      for (const [method, path, body, says] of cases) {
        const answer = await raw(url, method, path, body);
        expect({ method, path, status: answer.status, error: answer.body.error }).toEqual({
          method,
          path,
          status: 400,
          error: "INVALID_ARGUMENT",
        });
        expect(answer.body.message).toMatch(says);
      }
    });

    it("a filtered search with limit 1 reads about one row of a large namespace (filter, limit and offset go to SQL)", async () => {
      const { client, server } = await open();
      const big = "x".repeat(64 * 1024);
      for (let i = 0; i < 40; i++) {
        await client.store.putItem(["bulk"], `k${String(i).padStart(2, "0")}`, { kind: "note", n: i, big });
      }
      // count what the store reads from its database, whatever it is asked
      const backend = (server.itemStore as unknown as { backend: { scan: (...a: unknown[]) => Promise<unknown[]> } })
        .backend;
      const scan = backend.scan.bind(backend);
      let rows = 0;
      backend.scan = async (...args: unknown[]) => {
        const out = await scan(...args);
        rows += out.length;
        return out;
      };
      const one = await client.store.searchItems(["bulk"], { filter: { kind: "note" }, limit: 1 });
      expect(one.items.map((i) => i.value.n)).toEqual([39]);
      expect(rows).toBe(1);
      rows = 0;
      const page = await client.store.searchItems(["bulk"], {
        filter: { kind: "note", n: { $lt: 30 } },
        limit: 2,
        offset: 3,
      });
      expect(page.items.map((i) => i.value.n)).toEqual([26, 25]);
      expect(rows).toBe(2);
      rows = 0;
      // a condition SQL cannot evaluate exactly (a list compared whole) reads a few rows at a time, not the namespace
      const listed = await client.store.searchItems(["bulk"], {
        filter: { kind: "note", tags: { $ne: ["a"] } },
        limit: 1,
      });
      expect(listed.items).toHaveLength(1);
      expect(rows).toBeLessThanOrEqual(16);
    });

    it("refuses what no storage can hold with a 400 naming it — never a 500", async () => {
      const { url } = await open();
      const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]));
      const cases: Array<[string, string, unknown, RegExp]> = [
        ["PUT", "/store/items", { namespace: ["a"], key: "k\u0000", value: { a: 1 } }, /NUL/],
        ["PUT", "/store/items", { namespace: ["a\u0000"], key: "k", value: { a: 1 } }, /NUL/],
        ["PUT", "/store/items", { namespace: ["a"], key: "k", value: { note: "x\u0000" } }, /NUL/],
        ["PUT", "/store/items", { namespace: ["a"], key: "k", value: { a: 1 }, ttl: 2e14 }, /ttl.*up to/],
        ["PUT", "/store/items", { namespace: [], key: "k", value: { a: 1 } }, /at least one label/],
        ["PUT", "/store/items", { namespace: ["a"], key: "k".repeat(5000), value: { a: 1 } }, /bytes/],
        ["POST", "/store/items/search", { namespace_prefix: ["a"], filter: wide(1001) }, /at most 100/],
        ["POST", "/store/items/search", { namespace_prefix: ["a"], filter: wide(40_000) }, /at most 100/],
        ["POST", "/store/items/search", { namespace_prefix: ["a"], filter: { a: "\u0000" } }, /NUL/],
        ["GET", "/store/items?namespace=a&key=k%00", undefined, /NUL/],
      ];
      for (const [method, path, body, says] of cases) {
        const answer = await raw(url, method, path, body);
        expect({ method, path: path.slice(0, 60), status: answer.status, error: answer.body.error }).toEqual({
          method,
          path: path.slice(0, 60),
          status: 400,
          error: "INVALID_ARGUMENT",
        });
        expect(answer.body.message).toMatch(says);
      }
    });

    it("with auth on, refuses an empty namespace and names the user's namespace as they wrote it", async () => {
      const { url } = await open({ auth: { enabled: true, credentials: CREDENTIALS } });
      const put = (body: unknown) =>
        fetch(`${url}/store/items`, {
          method: "PUT",
          headers: { "content-type": "application/json", "x-api-key": "ana-key" },
          body: JSON.stringify(body),
        });
      const empty = await put({ namespace: [], key: "k", value: { a: 1 } });
      expect(empty.status).toBe(400);
      expect(((await empty.json()) as { message: string }).message).toMatch(/at least one label/);
      const dotted = await put({ namespace: ["prefs", "a.b"], key: "k", value: { a: 1 } });
      expect(dotted.status).toBe(400);
      const message = ((await dotted.json()) as { message: string }).message;
      expect(message).toContain('["prefs","a.b"]');
      expect(message).not.toMatch(/user:/);
      const deep = await put({ namespace: Array.from({ length: 64 }, (_, i) => `l${i}`), key: "k", value: { a: 1 } });
      expect(((await deep.json()) as { message: string }).message).toMatch(/64 labels; use at most 63/);
    });

    it("with auth on, keeps each user's items apart, ctx.store of their runs included", async () => {
      const { url } = await open({ auth: { enabled: true, credentials: CREDENTIALS } });
      const ana = new Client({ apiUrl: url, apiKey: "ana-key" });
      const bo = new Client({ apiUrl: url, apiKey: "bo-key" });
      await ana.store.putItem(["prefs"], "drink", { text: "tea" });
      expect((await ana.store.getItem(["prefs"], "drink"))?.value).toEqual({ text: "tea" });
      expect(await bo.store.getItem(["prefs"], "drink")).toBeNull();
      expect((await bo.store.searchItems([])).items).toEqual([]);
      expect((await bo.store.listNamespaces()).namespaces).toEqual([]);
      expect((await ana.store.listNamespaces()).namespaces).toEqual([["prefs"]]);
      await bo.store.putItem(["prefs"], "drink", { text: "coffee" });
      await bo.store.deleteItem(["prefs"], "drink");
      expect((await ana.store.getItem(["prefs"], "drink"))?.value).toEqual({ text: "tea" });
      // a user cannot reach another's items by naming the internal label either
      expect(await bo.store.getItem(["user:ana", "prefs"], "drink")).toBeNull();
      const thread = await ana.threads.create();
      await ana.runs.wait(thread.thread_id, "memory", { input: { text: "ana's run" } });
      expect((await ana.store.getItem(["memories"], "last"))?.value).toEqual({ text: "ana's run", by: "graph" });
      expect(await bo.store.getItem(["memories"], "last")).toBeNull();
      const anon = await fetch(`${url}/store/items/search`, { method: "POST", body: "{}" });
      expect(anon.status).toBe(401);
    });

    it("with auth on, listing a user's namespaces reads theirs from the database, not every user's", async () => {
      const { url, server } = await open({ auth: { enabled: true, credentials: CREDENTIALS } });
      const ana = new Client({ apiUrl: url, apiKey: "ana-key" });
      const bo = new Client({ apiUrl: url, apiKey: "bo-key" });
      for (let i = 0; i < 30; i++) await bo.store.putItem(["bo-topics", `t${i}`], "k", { a: i });
      await ana.store.putItem(["ana-topics", "one"], "k", { a: 1 });
      // under the per-user limits (auth on) is the database-backed store
      const limited = server.itemStore as unknown as { inner?: unknown };
      const backend = (
        (limited.inner ?? limited) as { backend: { namespaces: (...a: unknown[]) => Promise<string[]> } }
      ).backend;
      const namespaces = backend.namespaces.bind(backend);
      let read = 0;
      backend.namespaces = async (...args: unknown[]) => {
        const out = await namespaces(...args);
        read += out.length;
        return out;
      };
      const listed = (await ana.store.listNamespaces()).namespaces;
      expect(listed).toContainEqual(["ana-topics", "one"]);
      expect(listed.some((ns) => ns[0] === "bo-topics")).toBe(false);
      // what was read from the database is ana's namespaces, none of bo's 30
      expect(read).toBe(listed.length);
    });
  });
}
