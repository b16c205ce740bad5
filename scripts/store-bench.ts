// Times the Store on SQLite and Postgres with N items (default 20,000) under 100 namespaces:
// fill, get, a newest-first page, a filtered search over every item, one over one namespace, listNamespaces.
// Run: npx tsx --conditions=@trellis/source scripts/store-bench.ts 20000   (Postgres at TRELLIS_POSTGRES_URL
// or 127.0.0.1:5432/test; a schema of its own, dropped at the end)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@trellis/checkpoint";
import { PostgresStore } from "@trellis/checkpoint-postgres";
import { dropSchema, POSTGRES_URL, testSchema } from "@trellis/checkpoint-postgres/testing";
import { SqliteStore } from "@trellis/checkpoint-sqlite";

const N = Number(process.argv[2] ?? 20000);
async function fill(store: Store) {
  const t0 = performance.now();
  const batch: Promise<void>[] = [];
  for (let i = 0; i < N; i++) {
    batch.push(
      store.put(["bench", `u${i % 100}`], `k${i}`, {
        n: i,
        kind: i % 10 === 0 ? "tip" : "note",
        text: `item number ${i}`,
      }),
    );
    if (batch.length === 200) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  return performance.now() - t0;
}
async function time(label: string, fn: () => Promise<unknown>, reps = 5) {
  await fn();
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) await fn();
  console.log(`${label}: ${((performance.now() - t0) / reps).toFixed(1)} ms`);
}
async function run(name: string, store: Store) {
  console.log(`${name}, ${N} items: fill ${(await fill(store)).toFixed(0)} ms`);
  await time("  get", () => store.get(["bench", "u7"], "k7"));
  await time("  search page (no filter)", () => store.search(["bench"], { limit: 10 }));
  await time("  search filter over all", () =>
    store.search(["bench"], { filter: { kind: "tip", n: { $gt: 100 } }, limit: 10 }),
  );
  await time("  search filter one user (1/100)", () =>
    store.search(["bench", "u7"], { filter: { kind: "tip" }, limit: 10 }),
  );
  await time("  listNamespaces", () => store.listNamespaces({ prefix: ["bench"] }));
}
const dir = mkdtempSync(join(tmpdir(), "trellis-store-bench-"));
const sqlite = new SqliteStore({ filename: join(dir, "bench.db") });
await run("SqliteStore", sqlite);
await sqlite.close();
rmSync(dir, { recursive: true, force: true });
const schema = testSchema("storebench");
const pg = new PostgresStore({ connectionString: POSTGRES_URL, schema, poolConfig: { max: 4 } });
await run("PostgresStore", pg);
await pg.close();
await dropSchema(schema);
