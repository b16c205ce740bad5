/**
 * Per-user limits on the embedded SQLite file (the cases of `user-limits-cases.ts`), and the store
 * limits reaching a run's `ctx.store`.
 */
import { describe, expect, it } from "vitest";
import { startTestServer } from "./harness.js";
import { userLimitCases } from "./user-limits-cases.js";

userLimitCases("SQLite");

describe("per-user store limits in a run", () => {
  it("a node's ctx.store.put past the user's bytes fails the run with the 429's code, writing nothing", async () => {
    const t = await startTestServer({
      graphs: { memory: { module: "./src/test/fixture-store.ts", graph: "memoryGraph" } },
      auth: { enabled: true, credentials: [{ user: "bob", apiKey: "key-bob" }] },
      limits: { storeBytesPerUser: 300 },
    });
    try {
      const wait = async (text: string) => {
        const res = await fetch(`${t.url}/runs/wait`, {
          method: "POST",
          headers: { "x-api-key": "key-bob", "content-type": "application/json" },
          body: JSON.stringify({ assistant_id: "memory", input: { text } }),
        });
        return (await res.json()) as Record<string, unknown>;
      };
      expect(await wait("tea")).toMatchObject({ recalled: ["tea"] });
      const refused = await wait("x".repeat(400));
      expect(refused.__error__).toMatchObject({ error: "TOO_MANY_REQUESTS" });
      expect(String((refused.__error__ as { message: string }).message)).toContain("limits.storeBytesPerUser");
      const item = await fetch(`${t.url}/store/items?namespace=memories&key=last`, {
        headers: { "x-api-key": "key-bob" },
      });
      expect(((await item.json()) as { value: unknown }).value).toEqual({ text: "tea", by: "graph" });
    } finally {
      await t.close();
    }
  });
});
