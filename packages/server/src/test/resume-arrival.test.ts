/**
 * One answer per pause, by the time the request arrived, against a server in a child process (SQLite,
 * auth on): twenty identical plain resumes of a first gate, on twenty sockets at once, apply one answer;
 * the second gate, reached milliseconds later, stays pending however late the others are accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildServer, startChildServer } from "./raw-socket.js";
import { type BurstTarget, oneAnswerPerBurst } from "./resume-burst.js";

let s: ChildServer;
let target: BurstTarget;

beforeAll(async () => {
  s = await startChildServer({
    graphs: { "two-gates": { module: "./src/test/fixture-interview.ts", graph: "twoGates" } },
  });
  target = { urls: [s.url], headers: { "x-api-key": "key-ana" }, graph: "two-gates" };
}, 60_000);

afterAll(async () => {
  await s?.stop();
});

describe("a plain resume answers the pause pending when its request arrived (server in a child process)", () => {
  it.each(["enqueue", "reject"] as const)(
    "20 concurrent identical resumes of the first gate (%s), 3 threads: one applied each, the second gate pending",
    { timeout: 120_000 },
    async (strategy) => {
      await oneAnswerPerBurst(target, strategy);
      expect(s.alive()).toBe(true);
    },
  );
});
