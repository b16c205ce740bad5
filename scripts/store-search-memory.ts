// Peak RSS and event-loop stall of 4 concurrent filtered searches with limit 1 over N items of ~900 KB
// (finding 7 of issue 33). Run: npx tsx --conditions=@trellis/source scripts/store-search-memory.ts 100
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@trellis/checkpoint-sqlite";

const N = Number(process.argv[2] ?? 100);
const dir = mkdtempSync(join(tmpdir(), "trellis-store-mem-"));
const store = new SqliteStore({ filename: join(dir, "mem.db") });
const big = "x".repeat(900 * 1024);
for (let i = 0; i < N; i++) await store.put(["mem"], `k${i}`, { kind: "note", n: i, big });
global.gc?.();
const before = process.memoryUsage().rss;
let peak = before;
let stall = 0;
let last = performance.now();
const tick = setInterval(() => {
  const now = performance.now();
  stall = Math.max(stall, now - last - 10);
  last = now;
  peak = Math.max(peak, process.memoryUsage().rss);
}, 10);
const t0 = performance.now();
await Promise.all(
  Array.from({ length: 4 }, () => store.search(["mem"], { filter: { kind: "note", n: { $gte: 0 } }, limit: 1 })),
);
const ms = performance.now() - t0;
await new Promise((r) => setTimeout(r, 30)); // let the interval see the last stall
clearInterval(tick);
console.log(
  `${N} items of 900 KB: 4 searches ${ms.toFixed(0)} ms, RSS ${(before / 2 ** 20).toFixed(0)} → peak ${(peak / 2 ** 20).toFixed(0)} MB, longest event-loop stall ${stall.toFixed(0)} ms`,
);
await store.close();
rmSync(dir, { recursive: true, force: true });
