import { TrellisError } from "@trellis/checkpoint";
import type { RunService } from "@trellis/server";
import { httpStatusOf } from "@trellis/server";
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { type ChatServiceOptions, chat, type ServedTurns } from "../chat-service.js";
import type { MarketAssistant } from "../market-assistant.js";

/**
 * Options of {@link createChatRoutes}: time and ids for tests, and — when the Trellis server mounts
 * the routes — its run service and the assistant id of the conversation graph.
 *
 * @example
 * createChatRoutes(assistant, { runs: ctx.runs, assistantId: ctx.assistantId });
 */
export interface ChatRoutesOptions extends Omit<ChatServiceOptions, "served"> {
  runs?: RunService | undefined;
  /** Default `market-assistant`. */
  assistantId?: string | undefined;
}

/** Thread ids: letters, digits and `_ . : -`, up to 128 characters (UUIDs fit). */
export const THREAD_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Longest accepted message, in characters. */
export const MAX_MESSAGE_CHARS = 8_000;

const chatBody = z.object({
  thread_id: z.string().regex(THREAD_ID, "thread_id must be 1-128 characters: letters, digits, _ . : -"),
  message: z
    .string()
    .max(MAX_MESSAGE_CHARS, `message must be at most ${MAX_MESSAGE_CHARS} characters`)
    .refine((m) => m.trim() !== "", "message must not be empty"),
});

/** An error body: what was wrong and, for invalid bodies, which fields. */
interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

/**
 * The app's HTTP routes (a Hono app; the Trellis server mounts it under `/apps/market-assistant/`):
 *
 * - `POST /chat` `{ thread_id, message }` → the agent's reply as stored:
 *   `{ id, thread_id, role: "assistant", content, timestamp, metadata: { agent_type, model, processing_time, … } }`.
 *   A body that is not JSON or does not match is a 400 with the issues.
 * - `GET /threads/:id/messages` → `{ thread_id, messages }`, oldest first; 503 when the store is down.
 * - `GET /health` → which store, database and model are in use, and whether they answer.
 *
 * With `runs` (the Trellis server mounts the routes), a `/chat` turn is a run of the server's run
 * service on the thread `thread_id`, as the user the server's auth resolved (see `chat`), and
 * `/threads/:id/messages` answers only for a thread that user may see (404 otherwise, as the API does).
 * What the server refuses is answered with its status: `{ error: { code, message } }`.
 *
 * @example
 * const app = createChatRoutes(await createMarketAssistant());
 * const res = await app.request("/chat", { method: "POST", body: JSON.stringify({ thread_id: "t-1", message: "Hi" }) });
 */
export function createChatRoutes(assistant: MarketAssistant, options: ChatRoutesOptions = {}): Hono {
  const app = new Hono();
  const { runs, assistantId, ...service } = options;
  // Mounted in the Trellis server, its auth has set the user (null with auth off).
  const userOf = (c: Context): string | null => {
    const user = (c.get as (key: string) => unknown)("user");
    return typeof user === "string" ? user : null;
  };
  const served = (c: Context): ServedTurns | undefined =>
    runs ? { runs, assistantId: assistantId ?? "market-assistant", user: userOf(c) } : undefined;

  app.post("/chat", async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(errorBody("INVALID_REQUEST", "The body must be JSON: { thread_id, message }."), 400);
    }
    const parsed = chatBody.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.join(".") || "(body)", message: i.message }));
      return c.json(
        errorBody(
          "INVALID_REQUEST",
          `Invalid chat request: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
          issues,
        ),
        400,
      );
    }
    const turns = served(c);
    return c.json(await chat(assistant, parsed.data, { ...service, ...(turns ? { served: turns } : {}) }));
  });

  app.get("/threads/:id/messages", async (c) => {
    const threadId = c.req.param("id");
    if (!THREAD_ID.test(threadId)) {
      return c.json(errorBody("INVALID_REQUEST", "thread id must be 1-128 characters: letters, digits, _ . : -"), 400);
    }
    if (runs) await runs.thread(threadId, { user: userOf(c) }); // 404 unless the caller may see the thread
    try {
      return c.json({ thread_id: threadId, messages: await assistant.store.list(threadId) });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      assistant.logger.warn(`Could not read thread ${threadId} from ${assistant.store.kind}: ${reason}`);
      return c.json(
        errorBody("STORE_UNAVAILABLE", `The transcript store (${assistant.store.kind}) is unavailable: ${reason}`),
        503,
      );
    }
  });

  app.get("/health", async (c) => {
    const [store, database] = await Promise.all([
      check(() => assistant.store.ping()),
      check(() => assistant.database.query("SELECT 1 AS one")),
    ]);
    const ok = store === "ok" && database === "ok";
    return c.json(
      {
        status: ok ? "ok" : "degraded",
        transcript_store: { kind: assistant.store.kind, status: store },
        database: { dialect: assistant.database.dialect, status: database },
        model: { provider: assistant.model.provider, model: assistant.model.model },
      },
      ok ? 200 : 503,
    );
  });

  app.notFound((c) => c.json(errorBody("NOT_FOUND", `No route ${c.req.method} ${c.req.path}.`), 404));
  app.onError((error, c) => {
    if (error instanceof TrellisError) {
      const status = (httpStatusOf(error.code) ?? 500) as ContentfulStatusCode;
      return c.json(errorBody(error.code, error.message), status);
    }
    assistant.logger.error(`Unhandled error on ${c.req.method} ${c.req.path}: ${error.message}`);
    return c.json(errorBody("INTERNAL", error.message), 500);
  });
  return app;
}

function errorBody(code: string, message: string, issues?: { path: string; message: string }[]): ErrorBody {
  return { error: { code, message, ...(issues ? { issues } : {}) } };
}

async function check(probe: () => Promise<unknown>): Promise<string> {
  try {
    await probe();
    return "ok";
  } catch (error) {
    return `unavailable: ${error instanceof Error ? error.message : String(error)}`;
  }
}
