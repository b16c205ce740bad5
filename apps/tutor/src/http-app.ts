import { TrellisError } from "@trellis/checkpoint";
import { httpStatusOf } from "@trellis/server";
import { type Context, Hono } from "hono";
import { z } from "zod";
import { seedInterruptInfo } from "./chat-response.js";
import type { GraphAgent } from "./graph-agent.js";
import { LocalRetriever } from "./retrieval/local-retriever.js";
import type { InterruptInfo } from "./test-session/test-graph.js";

/** Longest `query` accepted: a question or a test request, not a document. */
export const MAX_QUERY_CHARS = 4000;
/** Longest answer to a test question accepted. */
export const MAX_ANSWER_CHARS = 1000;
/** Longest conversation id accepted. */
export const MAX_ID_CHARS = 128;

const QUERY = "query must be a non-empty string";
const tooLong = (field: string, max: number) =>
  `${field} is too long: at most ${max} characters (send a shorter question)`;
const ID = "id must be a non-empty string (the conversation's thread id)";
const ANSWER = 'user_response must be a non-empty string (the answer, e.g. "B")';

const query = z.string({ error: QUERY }).trim().min(1, QUERY).max(MAX_QUERY_CHARS, tooLong("query", MAX_QUERY_CHARS));
const id = z.string({ error: ID }).trim().min(1, ID).max(MAX_ID_CHARS, tooLong("id", MAX_ID_CHARS));

const chatRequest = z.object({
  query,
  id,
  asignatura: z
    .string({ error: 'asignatura must be a subject code such as "iv" or "DS", or null' })
    .trim()
    .min(1)
    .max(64, tooLong("asignatura", 64))
    .nullable()
    .optional(),
});

const resumeRequest = z.object({
  id,
  user_response: z
    .string({ error: ANSWER })
    .trim()
    .min(1, ANSWER)
    .max(MAX_ANSWER_CHARS, tooLong("user_response", MAX_ANSWER_CHARS)),
  question_num: z
    .number({ error: "question_num must be the number of the question answered (interrupt_info.question_num)" })
    .int()
    .min(1)
    .optional(),
});

const searchRequest = z.object({
  query,
  asignatura: z.string().max(64, tooLong("asignatura", 64)).nullable().optional(),
  top_k: z.number().int().min(1).max(20).optional(),
});

/**
 * The seed's chat API as a Hono app, over one {@link GraphAgent}:
 *
 * - `POST /chat {query, id, asignatura}` → `{message, interrupted, interrupt_info}`
 * - `POST /resume_chat {id, user_response}` → the same shape
 * - `POST /search {query, asignatura, top_k}` → `{results}`: the embedded index, speaking the seed's
 *   RAG-service contract (so one tutor can serve as another's `RAG_URL`)
 * - `GET /health`
 *
 * A bad body is a 400 with `{error, reason}`; a `/chat` on a thread waiting for a test answer is a 409
 * `THREAD_PAUSED` with the pending `interrupt_info` (the graph's paused-input policy, `reject`). Mount it
 * anywhere (`app.route("/apps/tutor", createTutorApp(agent))`) or serve it on its own; mounted by the
 * Trellis server, turns run as the user its auth resolved.
 *
 * @example
 * const app = createTutorApp(GraphAgent.create({ dbPath: ":memory:" }));
 * const res = await app.request("/chat", { method: "POST", body: JSON.stringify({ query: "Hola", id: "t1", asignatura: "iv" }) });
 */
export function createTutorApp(agent: GraphAgent, options: { corpus?: LocalRetriever } = {}): Hono {
  const corpus = options.corpus ?? new LocalRetriever();
  const app = new Hono();
  // Mounted in the Trellis server, the server's auth has set the user: the agent runs as them.
  const agentFor = (c: Context) => {
    const user = (c.get as (key: string) => unknown)("user");
    return typeof user === "string" ? agent.forUser(user) : agent;
  };

  app.onError((error, c) => {
    if (error instanceof TrellisError) {
      const details = error.details as { interrupt_info?: InterruptInfo; error_code?: string } | undefined;
      const body = {
        error: details?.error_code ?? error.code,
        reason: error.message,
        ...(details?.interrupt_info ? { interrupt_info: seedInterruptInfo(details.interrupt_info) } : {}),
      };
      return c.json(body, httpStatusOf(error.code) as 400);
    }
    console.error("[tutor]", error);
    return c.json({ error: "INTERNAL", reason: (error as Error).message ?? String(error) }, 500);
  });

  // `degraded` while the latest search of the notes failed: an outage, not a gap in the notes.
  app.get("/health", (c) => {
    const retrieval = agent.retrievalHealth();
    return c.json({
      status: retrieval?.last_failed ? "degraded" : "ok",
      provider: agent.provider,
      ...(retrieval ? { retrieval } : {}),
    });
  });

  app.post("/chat", async (c) => {
    const body = await parseBody(c, chatRequest);
    if (!body.ok) return body.response;
    const { query, id, asignatura } = body.value;
    return c.json(await agentFor(c).chat(query, id, asignatura));
  });

  app.post("/resume_chat", async (c) => {
    const body = await parseBody(c, resumeRequest);
    if (!body.ok) return body.response;
    const { id, user_response, question_num } = body.value;
    return c.json(await agentFor(c).resumeChat(id, user_response, question_num));
  });

  app.post("/search", async (c) => {
    const body = await parseBody(c, searchRequest);
    if (!body.ok) return body.response;
    const { query, asignatura, top_k } = body.value;
    return c.json(await corpus.search({ query, asignatura: asignatura ?? null, topK: top_k ?? 3 }));
  });

  return app;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

async function parseBody<T>(c: Context, schema: z.ZodType<T>): Promise<Parsed<T>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    return {
      ok: false,
      response: c.json({ error: "INVALID_ARGUMENT", reason: "The body must be a JSON object." }, 400),
    };
  }
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  const reason = result.error.issues
    .map((issue) => `${issue.path.map(String).join(".") || "body"}: ${issue.message}`)
    .join("; ");
  return { ok: false, response: c.json({ error: "INVALID_ARGUMENT", reason }, 400) };
}
