import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll } from "vitest";
import type { GraphEntry, TrellisConfig } from "../config/config.js";
import { type CreateServerOptions, createServer, type TrellisServer } from "../server.js";

/** packages/server */
export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** the repository root */
export const REPO_DIR = resolve(PACKAGE_DIR, "../..");

/** The graphs the tests serve, as config entries resolved against packages/server. */
export const TEST_GRAPHS: Record<string, GraphEntry> = {
  "approval-flow": { module: resolve(REPO_DIR, "examples/src/approval-flow.ts"), graph: "buildGraph" },
  slow: { module: "./src/test/fixture-graphs.ts", graph: "slowGraph" },
  ask: { module: "./src/test/fixture-graphs.ts", graph: "askGraph" },
  chat: { module: "./src/test/fixture-graphs.ts", graph: "chatGraph" },
  "ask-then-slow": { module: "./src/test/fixture-graphs.ts", graph: "askThenSlowGraph" },
};

export interface TestServer {
  server: TrellisServer;
  url: string;
  dir: string;
  close(): Promise<void>;
}

/**
 * Starts a server on 127.0.0.1 with a random port and a fresh SQLite file in a temporary directory.
 *
 * @example
 * const t = await startTestServer();
 * const client = new Client({ apiUrl: t.url, apiKey: null });
 */
export async function startTestServer(
  overrides: Partial<TrellisConfig> = {},
  options: CreateServerOptions = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "trellis-server-"));
  const config: TrellisConfig = {
    graphs: TEST_GRAPHS,
    saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
    baseDir: PACKAGE_DIR,
    ...overrides,
  };
  const server = await createServer(config, { env: {}, ...options });
  const { url } = await server.listen(0);
  return {
    server,
    url,
    dir,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, ms = 5_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A test server for the file's tests, started before them and closed after, with the official
 * LangGraph SDK client pointed at it.
 *
 * @example
 * const s = sdkServer();
 * it("…", async () => { await s.client.threads.create(); });
 */
export function sdkServer(overrides: Partial<TrellisConfig> = {}): { readonly t: TestServer; readonly client: Client } {
  let t: TestServer | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    t = await startTestServer(overrides);
    client = new Client({ apiUrl: t.url, apiKey: null });
  });
  afterAll(async () => {
    await t?.close();
  });
  return {
    get t() {
      if (!t) throw new Error("the test server has not started: use it inside a test");
      return t;
    },
    get client() {
      if (!client) throw new Error("the test server has not started: use it inside a test");
      return client;
    },
  };
}
