/**
 * Requests of valid JSON whose fields reach SQL — wide filters, long lists, NUL characters, huge TTLs,
 * empty or deep namespaces, schedules on several lines — for the raw-socket fuzzer (SQLite) and its
 * Postgres run: every answer must be a 2xx or a 4xx, never a 5xx.
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { ChildServer } from "./raw-socket.js";

// valid JSON whose fields reach SQL: wide filters, long lists, NUL characters, huge TTLs, empty or
// deep namespaces, schedules on several lines. Every answer is a 4xx or a 2xx, never a 5xx.
const nul = fc.constantFrom("\u0000", "a\u0000", "ok", "\u0000\u0000b");
const wide = fc
  .constantFrom(0, 99, 100, 101, 999, 1001, 6000)
  .chain((n) => fc.constant(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))));
const scalar = fc.oneof(nul, fc.constantFrom(2e14, 1e308, -1, 0, 0.5, 525_600_001), fc.boolean(), fc.constant(null));
const labels = fc.oneof(fc.constant([]), fc.array(nul, { maxLength: 3 }), fc.constant(Array(70).fill("l")));
/** One request of valid JSON whose fields reach SQL. */
export const sqlCase = fc.oneof(
  fc.record({
    path: fc.constantFrom(
      "/threads/search",
      "/threads/count",
      "/assistants/search",
      "/assistants/count",
      "/runs/crons/search",
      "/runs/crons/count",
    ),
    method: fc.constant("POST"),
    body: fc.record(
      {
        metadata: fc.oneof(wide, fc.dictionary(nul, scalar)),
        ids: fc.constantFrom(undefined, ["a\u0000"], Array(2000).fill("t")),
        name: fc.option(nul),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.record({
    path: fc.constant("/threads"),
    method: fc.constant("POST"),
    body: fc.record({ metadata: fc.dictionary(nul, scalar) }),
  }),
  fc.record({
    path: fc.constant("/assistants"),
    method: fc.constant("POST"),
    body: fc.record({ graph_id: fc.constantFrom("ask", "a\u0000"), name: nul, metadata: fc.dictionary(nul, scalar) }),
  }),
  fc.record({
    path: fc.constant("/runs/crons"),
    method: fc.constant("POST"),
    body: fc.record({
      assistant_id: fc.constant("ask"),
      schedule: fc.constantFrom("* * * * *", "0 9 * * *\n", "0\n9 * * *", "\u0000 * * * *", "x".repeat(300)),
      metadata: fc.dictionary(nul, scalar),
    }),
  }),
  fc.record({
    path: fc.constant("/store/items"),
    method: fc.constant("PUT"),
    body: fc.record(
      {
        namespace: labels,
        key: fc.oneof(nul, fc.constant("k".repeat(3000))),
        value: fc.dictionary(nul, scalar),
        ttl: scalar,
      },
      { requiredKeys: ["namespace", "key", "value"] },
    ),
  }),
  fc.record({
    path: fc.constant("/store/items/search"),
    method: fc.constant("POST"),
    body: fc.record(
      {
        namespace_prefix: labels,
        filter: fc.oneof(wide, fc.dictionary(nul, scalar)),
        limit: fc.constantFrom(1, 1000),
        offset: fc.constantFrom(0, 2 ** 53 - 1),
      },
      { requiredKeys: [] },
    ),
  }),
);

/**
 * Sends one {@link sqlCase} as ana to a door-child server and checks the answer is below 500 and the
 * server still up; returns the status.
 */
export async function expectNoServerError(
  s: ChildServer,
  c: { path: string; method: string; body: unknown },
): Promise<number> {
  const res = await fetch(`${s.url}${c.path}`, {
    method: c.method,
    headers: { "content-type": "application/json", "x-api-key": "key-ana" },
    body: JSON.stringify(c.body),
  });
  await res.arrayBuffer();
  const sample = `${c.method} ${c.path} ${JSON.stringify(c.body).slice(0, 200)}`;
  expect(res.status, `answer to ${sample}`).toBeLessThan(500);
  expect(s.alive(), `server down after ${sample}`).toBe(true);
  return res.status;
}
