import { Client } from "@langchain/langgraph-sdk";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { describe, expect, it } from "vitest";
import { createServer } from "../server.js";
import { PACKAGE_DIR } from "./harness.js";
import { describeStoreApi } from "./store-cases.js";

const available = await requirePostgres();
const schema = testSchema("store_api");

describeStoreApi({
  label: "Postgres",
  skip: !available,
  saver: { kind: "postgres", url: POSTGRES_URL, schema },
  dispose: async () => {
    if (available) await dropSchema(schema);
  },
});

describe.skipIf(!available)("Store API across processes sharing one Postgres schema", () => {
  it("an item put through one server is read, searched and deleted through another", async () => {
    const shared = testSchema("store_two");
    const config = {
      graphs: {},
      saver: { kind: "postgres" as const, url: POSTGRES_URL, schema: shared },
      baseDir: PACKAGE_DIR,
    };
    const a = await createServer(config, { env: {}, workers: 0 });
    const b = await createServer(config, { env: {}, workers: 0 });
    try {
      const ca = new Client({ apiUrl: (await a.listen(0)).url, apiKey: null });
      const cb = new Client({ apiUrl: (await b.listen(0)).url, apiKey: null });
      await ca.store.putItem(["shared"], "k", { from: "a" });
      expect((await cb.store.getItem(["shared"], "k"))?.value).toEqual({ from: "a" });
      expect((await cb.store.searchItems(["shared"])).items.map((i) => i.key)).toEqual(["k"]);
      await cb.store.deleteItem(["shared"], "k");
      expect(await ca.store.getItem(["shared"], "k")).toBeNull();
    } finally {
      await a.close();
      await b.close();
      await dropSchema(shared);
    }
  });
});
