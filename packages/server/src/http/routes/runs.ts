import { TrellisError } from "@trellis/checkpoint";
import { type Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { parseRunRequest } from "../../runs/run-request.js";
import { type RunRecord, type RunStatus, TERMINAL_RUN_STATUSES } from "../../stores/run-store.js";
import { interruptJson, runJson, threadSnapshot } from "../../streams/api-shapes.js";
import { limitStreams } from "../../streams/stream-limits.js";
import { wireValue } from "../../streams/wire-values.js";
import { notFound } from "../http-errors.js";
import { checkStorable, invalid, parseJsonBody, queryInt, readBody } from "../request-body.js";
import type { ServerContext, ServerEnv } from "../server-context.js";

type Mode = "background" | "stream" | "wait";
type ParsedRun = ReturnType<typeof parseRunRequest>["request"];
/** At most this many runs in one `POST /runs/batch`. */
const MAX_BATCH = 100;

/** The body of `POST /runs/batch`: a JSON array of run payloads, each read as one run's body. */
function parseBatch(text: string): Record<string, unknown>[] {
  const value = parseJsonBody(text, "Send an array of run payloads.");
  if (!Array.isArray(value) || value.length === 0) {
    throw invalid("POST /runs/batch takes a non-empty JSON array of run payloads ({ assistant_id, input, … }).");
  }
  if (value.length > MAX_BATCH) throw invalid(`A batch holds at most ${MAX_BATCH} runs; this one has ${value.length}.`);
  return value.map((item, i) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw invalid(`Run ${i} of the batch must be a JSON object ({ assistant_id, input, … }).`);
    }
    return item as Record<string, unknown>;
  });
}
const RUN_STATUSES = new Set<RunStatus>(["pending", "running", "error", "success", "timeout", "interrupted"]);

function queryModes(c: Context): string[] | undefined {
  const raw = c.req.queries("stream_mode");
  if (!raw?.length) return undefined;
  return raw.flatMap((v) => {
    if (!v.startsWith("[")) return [v];
    try {
      const list = JSON.parse(v) as unknown;
      return Array.isArray(list) ? list.map(String) : [v];
    } catch {
      return [v];
    }
  });
}

/**
 * `/threads/{id}/runs…` and `/runs…`: create (background, stream, wait), list, get, delete, cancel,
 * join and join-stream. Streams are SSE with numbered event ids; `Last-Event-ID` resumes them.
 *
 * @example
 * app.route("/", runRoutes(ctx));
 */
export function runRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();

  /** Reads one run request of a body: its assistant resolved as the caller sees it. Stores nothing. */
  const parse = async (c: Context<ServerEnv>, body: Record<string, unknown>, mode: Mode) => {
    // all but the input and the command (state, which checkpoints store whatever it holds) reaches SQL
    const { input: _input, command: _command, ...looked } = body;
    checkStorable(looked, "The run request");
    // an assistant made with POST /assistants runs its graph; the run service merges its config
    const named = typeof body.assistant_id === "string" ? body.assistant_id : undefined;
    const found = named ? await ctx.runs.assistant(named, { user: c.var.user }) : undefined;
    return parseRunRequest(body, (id) => found?.hosted ?? ctx.graphFor(id), {
      streamDefault: mode === "stream" ? ["values"] : ["values", "updates", "messages-tuple", "custom"],
      onDisconnectDefault: "continue",
      authEnabled: ctx.authEnabled,
    }).request;
  };

  const start = (c: Context<ServerEnv>, request: ParsedRun, threadId: string | null, mode?: Mode) => {
    const { input, command, ...asked } = request.kwargs;
    // a stateless run answered at its end: its thread goes with the answer, its checkpoints are synced with it
    const temporary =
      threadId === null && request.onCompletion === "delete" && mode !== undefined && mode !== "background";
    const kwargs = temporary ? { ...asked, temporaryThread: true } : asked;
    return ctx.runs.start({
      assistantId: request.assistantId,
      threadId: threadId ?? undefined,
      as: { user: c.var.user },
      input,
      command,
      runId: request.runId,
      metadata: request.metadata,
      multitaskStrategy: request.multitaskStrategy,
      ifNotExists: request.ifNotExists,
      kwargs,
    });
  };

  /** Deletes a stateless run's temporary thread once the run is over (POST /runs… without on_completion keep). */
  const cleanupOf = (record: RunRecord, request: ParsedRun, threadId: string | null) => async () => {
    if (threadId !== null || request.onCompletion !== "delete") return;
    await ctx.manager.waitFor(record.runId);
    const thread = await ctx.store.getThread(record.threadId);
    if (thread) await ctx.runs.deleteThread(thread, { temporary: record.kwargs.temporaryThread === true });
  };

  const create = async (c: Context<ServerEnv>, threadId: string | null, mode: Mode) => {
    const request = await parse(c, await readBody(c), mode);
    const record = await start(c, request, threadId, mode);
    // a stateless run (POST /runs…) deletes its temporary thread once its answer is out
    const cleanup = cleanupOf(record, request, threadId);
    const base = threadId === null ? `/runs/${record.runId}` : `/threads/${record.threadId}/runs/${record.runId}`;
    c.header("Content-Location", base);
    if (mode === "background") {
      void cleanup().catch(() => undefined);
      return c.json(runJson(record));
    }
    if (mode === "wait") {
      const abort = new AbortController();
      c.req.raw.signal.addEventListener("abort", () => abort.abort(), { once: true });
      const values = await finalValues(record.runId, abort.signal);
      void cleanup().catch(() => undefined);
      return c.json(values);
    }
    c.header("Location", `${base}/stream`);
    return stream(c, record, { after: 0, cancelOnDisconnect: request.onDisconnect === "cancel", done: cleanup });
  };

  const finalValues = async (runId: string, signal?: AbortSignal) => {
    const run = await ctx.manager.waitFor(runId, signal);
    if (!run) return {};
    if (run.status === "error" || run.status === "timeout") return { __error__: run.error };
    const thread = await ctx.store.getThread(run.threadId);
    const snapshot = thread ? await threadSnapshot(ctx, thread) : undefined;
    if (!snapshot || !thread) return {};
    // only the graph's output keys, as LangGraph's runs/wait answers
    const graphId = thread.graphId ?? (thread.metadata.graph_id as string | undefined);
    const hosted = graphId ? ctx.graphs.get(graphId) : undefined;
    const values = hosted ? hosted.graph.outputOf(snapshot.values) : snapshot.values;
    return snapshot.interrupts.length
      ? { ...wireValue(values), __interrupt__: snapshot.interrupts.map(interruptJson) }
      : wireValue(values);
  };

  const stream = (
    c: Context<ServerEnv>,
    run: RunRecord,
    o: { after: number; modes?: string[] | undefined; cancelOnDisconnect: boolean; done?: () => Promise<void> },
  ) =>
    streamSSE(c, async (sse) => {
      const abort = new AbortController();
      sse.onAbort(() => {
        abort.abort();
        if (o.cancelOnDisconnect) void ctx.manager.cancel(run, "interrupt", false).catch(() => undefined);
      });
      try {
        for await (const e of ctx.manager.follow(run.runId, o.after, { modes: o.modes, signal: abort.signal })) {
          await sse.writeSSE({ id: String(e.seq), event: e.event, data: JSON.stringify(e.data) });
        }
      } finally {
        void o.done?.().catch(() => undefined);
      }
    });

  /**
   * The run, when it exists on a thread the user may see (`threadId` null: any thread). An operator may
   * reach any user's run here: get, stream, join, cancel and delete it.
   */
  const runFor = async (c: Context<ServerEnv>, threadId: string | null, runId: string) => {
    const run = await ctx.store.getRun(runId);
    if (!run || (threadId !== null && run.threadId !== threadId)) throw notFound("Run", runId);
    await ctx.threadFor(c.var.user, run.threadId, "operator").catch(() => {
      throw notFound("Run", runId);
    });
    return run;
  };

  // LangGraph's runs.createBatch: stateless background runs, all checked before any is queued
  app.post("/runs/batch", async (c) => {
    const bodies = parseBatch(await c.req.text());
    const requests: ParsedRun[] = [];
    for (const [i, body] of bodies.entries()) {
      try {
        requests.push(await parse(c, body, "background"));
      } catch (error) {
        if (!(error instanceof TrellisError)) throw error;
        throw new TrellisError(error.code, `Run ${i} of the batch: ${error.message} Nothing was queued.`, {
          details: { index: i, ...(typeof error.details === "object" && error.details ? error.details : {}) },
        });
      }
    }
    // room for the whole batch (limits.queuedRunsPerUser, threadsPerUser), or nothing is queued
    const owner = ctx.authEnabled ? c.var.user : null;
    await ctx.limits.checkRuns(owner, requests.length);
    await ctx.limits.checkThreads(owner, requests.length);
    const records: RunRecord[] = [];
    for (const request of requests) {
      const record = await start(c, request, null);
      void cleanupOf(record, request, null)().catch(() => undefined);
      records.push(record);
    }
    return c.json(records.map(runJson));
  });

  for (const [prefix, tid] of [
    ["/threads/:thread_id/runs", (c: Context) => c.req.param("thread_id") as string],
    ["/runs", () => null],
  ] as const) {
    // each stream is one of the user's open streams (limits.streamsPerUser), taken before anything is stored
    app.use(`${prefix}/stream`, limitStreams(ctx));
    app.use(`${prefix}/:run_id/stream`, limitStreams(ctx));
    app.post(prefix, (c) => create(c, tid(c), "background"));
    app.post(`${prefix}/stream`, (c) => create(c, tid(c), "stream"));
    app.post(`${prefix}/wait`, (c) => create(c, tid(c), "wait"));
    app.get(`${prefix}/:run_id/stream`, async (c) => {
      const run = await runFor(c, tid(c), c.req.param("run_id"));
      const last = Number(c.req.header("Last-Event-ID") ?? "0");
      const cancel = c.req.query("cancel_on_disconnect");
      return stream(c, run, {
        after: Number.isFinite(last) && last > 0 ? last : 0,
        modes: queryModes(c),
        cancelOnDisconnect: cancel === "1" || cancel === "true",
      });
    });
  }

  app.get("/threads/:thread_id/runs", async (c) => {
    const thread = await ctx.threadFor(c.var.user, c.req.param("thread_id"), "operator");
    const limit = queryInt(c.req.query("limit"), "limit", { min: 1, max: 1000 }) ?? 10;
    const offset = queryInt(c.req.query("offset"), "offset", { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
    const status = c.req.query("status") as RunStatus | undefined;
    const runs = await ctx.store.listRuns(thread.threadId, {
      limit,
      offset,
      ...(status && RUN_STATUSES.has(status) ? { status } : {}),
    });
    return c.json(runs.map(runJson));
  });

  app.get("/threads/:thread_id/runs/:run_id", async (c) =>
    c.json(runJson(await runFor(c, c.req.param("thread_id"), c.req.param("run_id")))),
  );

  app.delete("/threads/:thread_id/runs/:run_id", async (c) => {
    const run = await runFor(c, c.req.param("thread_id"), c.req.param("run_id"));
    if (!TERMINAL_RUN_STATUSES.has(run.status)) {
      throw new TrellisError("CONFLICT", `Run ${run.runId} is ${run.status}; cancel it before deleting it.`);
    }
    await ctx.store.deleteRun(run.runId);
    return c.body(null, 204);
  });

  app.post("/threads/:thread_id/runs/:run_id/cancel", async (c) => {
    const run = await runFor(c, c.req.param("thread_id"), c.req.param("run_id"));
    const action = c.req.query("action") ?? "interrupt";
    if (action !== "interrupt" && action !== "rollback") {
      throw new TrellisError("INVALID_ARGUMENT", 'action must be "interrupt" or "rollback".');
    }
    const wait = c.req.query("wait") === "1" || c.req.query("wait") === "true";
    await ctx.manager.cancel(run, action, wait);
    return c.body(null, wait ? 204 : 202);
  });

  app.get("/threads/:thread_id/runs/:run_id/join", async (c) => {
    const run = await runFor(c, c.req.param("thread_id"), c.req.param("run_id"));
    return c.json(await finalValues(run.runId, c.req.raw.signal));
  });

  return app;
}
