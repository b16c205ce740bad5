import { fileURLToPath } from "node:url";
import { createServer, type TrellisConfig, type TrellisServer } from "@trellis/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ChatMessage } from "./transcript/chat-message.js";

const appDir = fileURLToPath(new URL("..", import.meta.url));
const ANA = { "x-api-key": "key-ana" };
const BO = { "x-api-key": "key-bo" };

let open: TrellisServer;
let guarded: TrellisServer;

async function serve(overrides: Partial<TrellisConfig> = {}): Promise<TrellisServer> {
  return createServer(
    {
      graphs: { "market-assistant": { module: "./src/server-entry.ts", graph: "buildGraph", routes: "createRoutes" } },
      saver: { kind: "sqlite", path: ":memory:" },
      baseDir: appDir,
      ...overrides,
    },
    { env: {} },
  );
}

beforeAll(async () => {
  vi.stubEnv("MARKET_ASSISTANT_SQLITE_PATH", ":memory:");
  vi.stubEnv("REDIS_URL", "");
  vi.stubEnv("MARKET_ASSISTANT_DATABASE_URL", "");
  vi.stubEnv("TRELLIS_MODEL_PROVIDER", "");
  vi.stubEnv("MARKET_ASSISTANT_MODEL_PROVIDER", "");
  open = await serve();
  guarded = await serve({
    auth: {
      enabled: true,
      credentials: [
        { user: "ana", apiKey: "key-ana" },
        { user: "bo", apiKey: "key-bo" },
      ],
    },
  });
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
  const { defaultMarketAssistant } = await import("./server-entry.js");
  await (await defaultMarketAssistant()).close();
  vi.unstubAllEnvs();
});

async function call(server: TrellisServer, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await server.app.request(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the tests read several answer shapes
  return { status: res.status, json: (await res.json()) as any };
}

/** A message of the API's state, whichever shape the server speaks (Trellis's roles or LangChain's types). */
interface ApiMessage {
  id: string;
  role?: string;
  type?: string;
  content: string;
  toolCalls?: unknown[];
  tool_calls?: unknown[];
}
const isUser = (m: ApiMessage) => m.role === "user" || m.type === "human";
const isAnswer = (m: ApiMessage) =>
  (m.role === "assistant" || m.type === "ai") && !(m.toolCalls ?? m.tool_calls)?.length;

/** One turn on the app's route; the reply's text. */
async function viaApp(server: TrellisServer, threadId: string, message: string): Promise<string> {
  const res = await call(server, "/apps/market-assistant/chat", { thread_id: threadId, message });
  expect(res.status).toBe(200);
  return (res.json as ChatMessage).content;
}

/** One turn over the Agent Server API, sending only the question (as LangGraph's clients do). */
async function viaApi(server: TrellisServer, threadId: string, content: string): Promise<string> {
  const res = await call(server, `/threads/${threadId}/runs/wait`, {
    assistant_id: "market-assistant",
    input: { messages: [{ role: "user", content }] },
  });
  expect(res.status).toBe(200);
  return res.json.messages.at(-1).content;
}

describe("the app's /chat and the Agent Server API drive one thread", () => {
  it("a /chat conversation is a server thread: found, searchable, its messages tied to the transcript's", async () => {
    await viaApp(open, "found", "Who owns E-Channelling?");
    const thread = await call(open, "/threads/found");
    expect(thread.status).toBe(200);
    expect(thread.json).toMatchObject({ status: "idle", metadata: { graph_id: "market-assistant" } });
    const search = await call(open, "/threads/search", { metadata: { graph_id: "market-assistant" } });
    expect(search.json.map((t: { thread_id: string }) => t.thread_id)).toContain("found");

    const stored = (await call(open, "/apps/market-assistant/threads/found/messages")).json.messages as ChatMessage[];
    const state = await call(open, "/threads/found/state");
    const messages = state.json.values.messages as ApiMessage[];
    expect(messages[0]).toMatchObject({ id: stored[0]?.id, content: "Who owns E-Channelling?" });
    expect(isUser(messages[0] as ApiMessage)).toBe(true);
    expect(messages.at(-1)?.content).toBe(stored[1]?.content);
  });

  it("each door's turn is the conversation the other door's next turn reads", async () => {
    await viaApp(open, "mixed", "Tell me about John Keells");
    const owned = await viaApi(open, "mixed", "What companies do they own?");
    expect(owned).toContain("I took your question to be about John Keells Holdings PLC");

    await viaApi(open, "mixed", "Tell me about Hayleys");
    const next = await viaApp(open, "mixed", "What companies do they own?");
    expect(next).toContain("I took your question to be about Hayleys PLC");
    expect(next).toContain("- Puritas (Pvt) Ltd (Materials; unlisted): effective 67.7%, 100% held through Haycarb PLC");

    const state = await call(open, "/threads/mixed/state");
    const messages = state.json.values.messages as ApiMessage[];
    const turns = messages.filter(isUser).map((m) => m.content);
    expect(turns).toEqual([
      "Tell me about John Keells",
      "What companies do they own?",
      "Tell me about Hayleys",
      "What companies do they own?",
    ]);
    const answers = messages.filter(isAnswer);
    expect(answers).toHaveLength(4);
    expect((await call(open, "/threads/mixed/runs")).json).toHaveLength(4);
  });

  it("a second message while the first is answered is refused, and nothing of it is stored", async () => {
    const [a, b] = await Promise.all([
      call(open, "/apps/market-assistant/chat", { thread_id: "busy", message: "Tell me about Hayleys" }),
      call(open, "/apps/market-assistant/chat", { thread_id: "busy", message: "Who owns E-Channelling?" }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const refused = a.status === 409 ? a : b;
    expect(refused.json.error.code).toBe("CONFLICT");
    const stored = (await call(open, "/apps/market-assistant/threads/busy/messages")).json.messages;
    expect(stored).toHaveLength(2);
  });
});

describe("with the server's auth on", () => {
  it("a /chat conversation belongs to its user: another user's turns and reads are 404s", async () => {
    const started = await call(
      guarded,
      "/apps/market-assistant/chat",
      { thread_id: "ana-1", message: "Tell me about Hayleys" },
      ANA,
    );
    expect(started.status).toBe(200);
    expect((await call(guarded, "/threads/ana-1", undefined, ANA)).json.metadata).toMatchObject({ owner: "ana" });

    const hijack = await call(
      guarded,
      "/apps/market-assistant/chat",
      { thread_id: "ana-1", message: "What companies do they own?" },
      BO,
    );
    expect(hijack.status).toBe(404);
    expect(hijack.json.error.code).toBe("NOT_FOUND");
    expect((await call(guarded, "/apps/market-assistant/threads/ana-1/messages", undefined, BO)).status).toBe(404);
    expect((await call(guarded, "/threads/ana-1", undefined, BO)).status).toBe(404);

    const mine = await call(guarded, "/apps/market-assistant/threads/ana-1/messages", undefined, ANA);
    expect(mine.json.messages).toHaveLength(2); // bo's refused turn stored nothing
  });
});
