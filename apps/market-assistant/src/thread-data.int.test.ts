// Issue 33, finding 3: the transcript a thread keeps in Redis goes with the thread. With the server's auth
// on and two users, over a listening server and the official LangGraph SDK: another user never reads a
// thread's transcript through the app's route, and after `DELETE /threads/{id}` a new thread with the
// same id (another user's) finds nothing of the first conversation.
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { createServer, type TrellisServer } from "@trellis/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deleteKeys, inspectRedis } from "./test/redis-helpers.js";
import { REDIS_URL, requireRedis, uniqueName } from "./test/service-urls.js";

const appDir = fileURLToPath(new URL("..", import.meta.url));
const redisUp = await requireRedis();

describe.skipIf(!redisUp)("a thread's Redis transcript follows the thread", () => {
  const keyPrefix = `${uniqueName("ma-thread-data")}:`;
  let server: TrellisServer;
  let url: string;
  beforeAll(async () => {
    vi.stubEnv("REDIS_URL", REDIS_URL);
    vi.stubEnv("MARKET_ASSISTANT_REDIS_PREFIX", keyPrefix);
    vi.stubEnv("MARKET_ASSISTANT_SQLITE_PATH", ":memory:");
    vi.stubEnv("MARKET_ASSISTANT_DATABASE_URL", "");
    vi.stubEnv("TRELLIS_MODEL_PROVIDER", "");
    vi.stubEnv("MARKET_ASSISTANT_MODEL_PROVIDER", "");
    server = await createServer(
      {
        graphs: {
          "market-assistant": { module: "./src/server-entry.ts", graph: "buildGraph", routes: "createRoutes" },
        },
        saver: { kind: "sqlite", path: ":memory:" },
        baseDir: appDir,
        auth: {
          enabled: true,
          credentials: [
            { user: "alice", apiKey: "key-alice" },
            { user: "bob", apiKey: "key-bob" },
          ],
        },
      },
      { env: {} },
    );
    url = (await server.listen(0)).url;
  });
  afterAll(async () => {
    await server?.close();
    const { defaultMarketAssistant } = await import("./server-entry.js");
    await (await defaultMarketAssistant()).close();
    await deleteKeys(keyPrefix);
    vi.unstubAllEnvs();
  });

  const request = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, text: await res.text() };
  };

  it("bob never reads alice's transcript, and a thread re-made with her deleted thread's id starts empty", async () => {
    const T = uniqueName("conversation");
    const asked = await request("POST", "/apps/market-assistant/chat", "key-alice", {
      thread_id: T,
      message: "Tell me about John Keells Holdings, my secret portfolio pick",
    });
    expect(asked.status).toBe(200);
    const mine = await request("GET", `/apps/market-assistant/threads/${T}/messages`, "key-alice");
    expect(mine.text).toContain("my secret portfolio pick");
    const redis = inspectRedis();
    try {
      expect(await redis.exists(`${keyPrefix}thread:${T}:messages`)).toBe(1);
      // bob: 404 on her thread's transcript
      expect((await request("GET", `/apps/market-assistant/threads/${T}/messages`, "key-bob")).status).toBe(404);

      await new Client({ apiUrl: url, apiKey: "key-alice" }).threads.delete(T);
      expect(await redis.exists(`${keyPrefix}thread:${T}:messages`)).toBe(0);
    } finally {
      redis.disconnect();
    }
    await new Client({ apiUrl: url, apiKey: "key-bob" }).threads.create({ threadId: T });
    const his = await request("GET", `/apps/market-assistant/threads/${T}/messages`, "key-bob");
    expect(his.status).toBe(200);
    expect(JSON.parse(his.text)).toEqual({ thread_id: T, messages: [] });
  });
});
