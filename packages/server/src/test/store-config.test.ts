import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { TrellisError } from "@trellis/checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import type { TrellisConfig } from "../config/config.js";
import { createServer } from "../server.js";
import { eventually, PACKAGE_DIR } from "./harness.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-store-config-"));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(store: unknown): TrellisConfig {
  return {
    graphs: {},
    saver: { kind: "sqlite", path: join(dir, `s${++n}.sqlite`) },
    baseDir: PACKAGE_DIR,
    store: store as NonNullable<TrellisConfig["store"]>,
  };
}

describe("trellis.json store section", () => {
  it.each([
    [{ index: { dims: 8 } }, /index needs "embed"/],
    [{ index: { embed: "./src/test/fixture-store.ts:embed", dims: 0 } }, /index.dims/],
    [{ index: { embed: "./src/test/fixture-store.ts:nothing", dims: 8 } }, /no function export "nothing"/],
    [{ index: { embed: "./src/test/no-such-file.ts:embed", dims: 8 } }, /cannot load index.embed/],
    [{ index: { embed: "openai:text-embedding-3-small", dims: 8 } }, /"provider:model" strings are not read here/],
    [{ index: { embed: "./src/test/fixture-store.ts:embed", dims: 8, fields: "text" } }, /index.fields/],
    [{ ttl: { defaultTtl: -1 } }, /ttl.defaultTtl/],
    [{ ttl: { refresh_on_read: "yes" } }, /refreshOnRead/],
  ])("refuses %j with INVALID_CONFIG saying what to fix", async (store, says) => {
    const error = await createServer(config(store), { env: {} }).then(
      async (s) => {
        await s.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TrellisError);
    expect((error as TrellisError).code).toBe("INVALID_CONFIG");
    expect((error as TrellisError).message).toMatch(says);
  });

  it("checks the section before opening the data file: a server with a good config starts on it next", async () => {
    const bad = config({ index: { dims: 8 } });
    await expect(createServer(bad, { env: {} })).rejects.toThrow(/index needs "embed"/);
    const server = await createServer({ ...bad, store: {} }, { env: {} });
    await server.close();
  });

  it("applies ttl.default_ttl (LangGraph's name) to items put without a ttl", async () => {
    const server = await createServer(config({ ttl: { default_ttl: 0.002 } }), { env: {} });
    try {
      const { url } = await server.listen(0);
      const client = new Client({ apiUrl: url, apiKey: null });
      await client.store.putItem(["t"], "short", { a: 1 });
      await client.store.putItem(["t"], "kept", { a: 2 }, { ttl: null });
      await eventually(async () => (await client.store.getItem(["t"], "short", { refreshTtl: false })) === null);
      expect((await client.store.getItem(["t"], "kept"))?.value).toEqual({ a: 2 });
    } finally {
      await server.close();
    }
  });
});
