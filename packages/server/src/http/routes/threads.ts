import { randomUUID } from "node:crypto";
import { TrellisError } from "@trellis/checkpoint";
import type { StateSnapshot } from "@trellis/core";
import { Hono } from "hono";
import { copyCheckpoints } from "../../runs/thread-copy.js";
import type { ThreadQuery, ThreadRecord, ThreadStatus } from "../../stores/run-store.js";
import { stateJson, threadJson, threadSnapshot } from "../../streams/api-shapes.js";
import { checkId, checkStorable, field, invalid, readBody, readStoredBody } from "../request-body.js";
import type { ServerContext, ServerEnv } from "../server-context.js";

const THREAD_STATUSES = ["idle", "busy", "interrupted", "error"] as const satisfies readonly ThreadStatus[];
const SORT_BY = ["thread_id", "status", "created_at", "updated_at"] as const;

/** A checkpoint id given as a string or inside a checkpoint object; it is looked up in SQL. */
function checkpointIdOf(value: unknown): string | undefined {
  const v = value as { checkpoint_id?: unknown; configurable?: { checkpoint_id?: unknown } } | null;
  const id = typeof value === "string" ? value : (v?.checkpoint_id ?? v?.configurable?.checkpoint_id);
  if (typeof id !== "string") return undefined;
  checkStorable(id, "The checkpoint id");
  return id;
}

function searchQuery(
  body: Record<string, unknown>,
  owner: string | null | undefined,
): Omit<ThreadQuery, "limit" | "offset"> {
  const query: Omit<ThreadQuery, "limit" | "offset"> = {};
  const metadata = field.filter(body, "metadata");
  const status = field.oneOf(body, "status", THREAD_STATUSES);
  const ids = field.stringList(body, "ids");
  if (metadata) query.metadata = metadata;
  if (status) query.status = status;
  if (ids) query.ids = ids;
  if (owner !== undefined) query.owner = owner;
  return query;
}

/**
 * `/threads`: create (with `if_exists`), get, patch, search, count, delete, state (get, update, at a
 * checkpoint) and history. With auth on, a thread belongs to the user who created it; to anyone else
 * it does not exist (404) — except an operator, who finds every user's threads in search and count
 * (`metadata.owner` tells whose) and may get, read the state and history of, and delete any of them.
 *
 * @example
 * app.route("/threads", threadRoutes(ctx));
 */
export function threadRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  // an operator's search and count see every user's threads; the owner's own filter narrows them
  const owner = (user: string | null) => (ctx.authEnabled && !ctx.isOperator(user) ? user : undefined);

  app.post("/", async (c) => {
    const body = await readStoredBody(c);
    const threadId = checkId(field.string(body, "thread_id") ?? randomUUID(), "thread_id");
    const ifExists = field.oneOf(body, "if_exists", ["raise", "do_nothing"] as const) ?? "raise";
    const metadata = field.object(body, "metadata") ?? {};
    const supersteps = body.supersteps;
    if (Array.isArray(supersteps) && supersteps.length > 0)
      throw invalid("Creating a thread with supersteps is not supported; create it, then POST /threads/{id}/state.");
    const graphId =
      typeof metadata.graph_id === "string" && ctx.graphs.has(metadata.graph_id) ? metadata.graph_id : null;
    const now = new Date().toISOString();
    // Thread ids are one namespace for all users, so an id in use cannot be created again whoever holds
    // it. The answer is the same 409 for the caller's own thread and another user's: it never tells whose.
    const mine = (t: ThreadRecord) => !ctx.authEnabled || t.owner === c.var.user;
    const existing = await ctx.store.getThread(threadId);
    if (existing && (ifExists === "raise" || !mine(existing))) throw taken(threadId);
    if (!existing) await ctx.limits.checkThreads(ctx.authEnabled ? c.var.user : null);
    const record: ThreadRecord = {
      threadId,
      createdAt: now,
      updatedAt: now,
      metadata: ctx.authEnabled ? { ...metadata, owner: c.var.user } : metadata,
      status: "idle",
      owner: ctx.authEnabled ? c.var.user : null,
      graphId,
      error: null,
    };
    const thread = await ctx.store.createThread(record, ifExists).catch((error: unknown) => {
      throw error instanceof TrellisError && error.code === "CONFLICT" ? taken(threadId) : error;
    });
    // created meanwhile by another user, and given back by do_nothing: not the caller's to see
    if (!mine(thread)) throw taken(threadId);
    return c.json(await threadJson(ctx, thread));
  });

  app.post("/search", async (c) => {
    const body = await readStoredBody(c);
    const limit = field.int(body, "limit", { min: 1, max: 1000 }) ?? 10;
    const offset = field.int(body, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
    const sortBy = field.oneOf(body, "sort_by", SORT_BY);
    const sortOrder = field.oneOf(body, "sort_order", ["asc", "desc"] as const);
    const query: ThreadQuery = { ...searchQuery(body, owner(c.var.user)), limit, offset };
    if (sortBy) query.sortBy = sortBy;
    if (sortOrder) query.sortOrder = sortOrder;
    const threads = await ctx.store.searchThreads(query);
    return c.json(await Promise.all(threads.map((t) => threadJson(ctx, t))));
  });

  app.post("/count", async (c) => {
    const body = await readStoredBody(c);
    return c.json(await ctx.store.countThreads(searchQuery(body, owner(c.var.user))));
  });

  app.get("/:thread_id", async (c) => {
    const thread = await ctx.threadFor(c.var.user, c.req.param("thread_id"), "operator");
    return c.json(await threadJson(ctx, thread));
  });

  app.patch("/:thread_id", async (c) => {
    const thread = await ctx.threadFor(c.var.user, c.req.param("thread_id"));
    const body = await readStoredBody(c);
    const metadata = field.object(body, "metadata") ?? {};
    const merged = { ...thread.metadata, ...metadata, ...(ctx.authEnabled ? { owner: thread.owner } : {}) };
    await ctx.store.updateThread(thread.threadId, { metadata: merged });
    return c.json(await threadJson(ctx, { ...thread, metadata: merged }));
  });

  app.delete("/:thread_id", async (c) => {
    const thread = await ctx.threadFor(c.var.user, c.req.param("thread_id"), "operator");
    // its runs cancelled, the apps' data for it, its checkpoints, then its record
    await ctx.runs.deleteThread(thread);
    return c.body(null, 204);
  });

  const state = async (thread: ThreadRecord, checkpointId: string | undefined, subgraphs: boolean) => {
    if (checkpointId !== undefined && !(await ctx.saver.get({ threadId: thread.threadId, checkpointId }))) {
      throw new TrellisError("CHECKPOINT_NOT_FOUND", `Thread "${thread.threadId}" has no checkpoint ${checkpointId}.`, {
        details: { threadId: thread.threadId, checkpointId },
      });
    }
    const snapshot = await threadSnapshot(ctx, thread, checkpointId, subgraphs);
    if (!snapshot) return emptyState(thread.threadId);
    return stateJson(snapshot, thread.threadId);
  };

  app.get("/:thread_id/state", async (c) => {
    const thread = await ctx.threadFor(c.var.user, c.req.param("thread_id"), "operator");
    return c.json(await state(thread, undefined, c.req.query("subgraphs") === "true"));
  });

  app.get("/:thread_id/state/:checkpoint_id", async (c) => {
    const thread = await ctx.threadFor(c.var.user, c.req.param("thread_id"));
    const id = checkId(c.req.param("checkpoint_id"), "checkpoint_id");
    return c.json(await state(thread, id, c.req.query("subgraphs") === "true"));
  });

  app.post("/:thread_id/copy", async (c) => {
    const source = await ctx.threadFor(c.var.user, c.req.param("thread_id"));
    await ctx.limits.checkThreads(source.owner);
    if ((await ctx.store.activeRuns(source.threadId)).length > 0) {
      throw new TrellisError(
        "CONFLICT",
        `Thread ${source.threadId} has a run in progress; copy it once the run ended.`,
      );
    }
    const now = new Date().toISOString();
    const copy = await ctx.store.createThread(
      {
        ...source,
        threadId: randomUUID(),
        createdAt: now,
        updatedAt: now,
        status: source.status === "busy" ? "idle" : source.status,
      },
      "raise",
    );
    await copyCheckpoints(ctx.saver, source.threadId, copy.threadId);
    await ctx.store.markStateChanged(copy.threadId);
    return c.json(await threadJson(ctx, copy));
  });

  app.post("/:thread_id/state/checkpoint", async (c) => {
    const thread = await ctx.threadFor(c.var.user, c.req.param("thread_id"));
    const body = await readBody(c);
    const id = checkpointIdOf(body.checkpoint);
    return c.json(await state(thread, id, field.boolean(body, "subgraphs") === true));
  });

  app.post("/:thread_id/state", async (c) => {
    const thread = await ctx.threadFor(c.var.user, c.req.param("thread_id"));
    const body = await readBody(c);
    const asNode = field.string(body, "as_node");
    const checkpointId = checkpointIdOf(field.string(body, "checkpoint_id") ?? body.checkpoint);
    const values = body.values ?? null;
    if (values !== null && (typeof values !== "object" || Array.isArray(values))) {
      throw invalid('"values" must be an object of state keys.');
    }
    const graphId = thread.graphId ?? (thread.metadata.graph_id as string | undefined);
    if (!graphId || !ctx.graphs.has(graphId)) {
      throw invalid("This thread has no graph yet: run it once, or create it with metadata.graph_id.");
    }
    const graph = ctx.graphFor(graphId).graph;
    const unknown = Object.keys(values ?? {}).filter((k) => !graph.schemaKeys.includes(k));
    if (unknown.length) {
      throw new TrellisError("UNKNOWN_STATE_KEY", `State keys ${unknown.join(", ")} are not in graph "${graphId}".`);
    }
    const current = await threadSnapshot(ctx, thread);
    const bytes =
      Buffer.byteLength(JSON.stringify(values ?? {})) + Buffer.byteLength(JSON.stringify(current?.values ?? {}));
    if (bytes > ctx.config.limits.stateBytes) {
      throw new TrellisError("PAYLOAD_TOO_LARGE", `The state would exceed ${ctx.config.limits.stateBytes} bytes.`);
    }
    if ((await ctx.store.activeRuns(thread.threadId)).length > 0) {
      throw new TrellisError(
        "CONFLICT",
        `Thread "${thread.threadId}" has a run in progress; update its state when it ends.`,
      );
    }
    const result = await graph.updateState(
      {
        threadId: thread.threadId,
        ...(checkpointId !== undefined ? { checkpointId } : {}),
        metadata: { ...(ctx.authEnabled ? { user: c.var.user } : {}) },
      },
      (values ?? {}) as Record<string, unknown>,
      asNode,
    );
    await ctx.store.updateThread(thread.threadId, { graphId, status: "idle" });
    await ctx.store.markStateChanged(thread.threadId); // a plain resume sent before this cannot answer what it made
    const after = await threadSnapshot(ctx, { ...thread, graphId });
    if (after && after.next.length > 0 && after.interrupts.length > 0)
      await ctx.store.updateThread(thread.threadId, { status: "interrupted" });
    const checkpoint = {
      thread_id: thread.threadId,
      checkpoint_ns: "",
      checkpoint_id: result.checkpointId,
      checkpoint_map: null,
    };
    // langgraph-api answers { checkpoint }; the SDK's type names { configurable }: both are given.
    return c.json({ checkpoint, configurable: checkpoint });
  });

  app.post("/:thread_id/history", async (c) => {
    const thread = await ctx.threadFor(c.var.user, c.req.param("thread_id"), "operator");
    const body = await readStoredBody(c);
    const limit = field.int(body, "limit", { min: 1, max: 1000 }) ?? 10;
    const before = checkpointIdOf(body.before);
    const filter = field.filter(body, "metadata");
    const graphId = thread.graphId ?? (thread.metadata.graph_id as string | undefined);
    const hosted = graphId ? ctx.graphs.get(graphId) : undefined;
    if (!hosted) return c.json([]);
    const out: ReturnType<typeof stateJson>[] = [];
    const options = { limit, ...(before ? { before } : {}), ...(filter ? { filter } : {}) };
    for await (const s of hosted.graph.getStateHistory({ threadId: thread.threadId }, options)) {
      out.push(stateJson(s as StateSnapshot, thread.threadId));
    }
    return c.json(out);
  });

  app.get("/:thread_id/stream", async (c) => {
    const thread = await ctx.threadFor(c.var.user, c.req.param("thread_id"));
    const active = await ctx.store.activeRuns(thread.threadId);
    const run = active.at(-1);
    const target = run ? `/threads/${thread.threadId}/runs/${run.runId}/stream` : undefined;
    if (!target) return c.body("", 200, { "Content-Type": "text/event-stream" });
    return c.redirect(target, 307);
  });

  return app;
}

function taken(threadId: string): TrellisError {
  return new TrellisError("CONFLICT", `Thread id "${threadId}" is taken; choose another.`, {
    details: { id: threadId },
  });
}

function emptyState(threadId: string) {
  return {
    values: {},
    next: [],
    tasks: [],
    checkpoint: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: null, checkpoint_map: null },
    metadata: null,
    created_at: null,
    parent_checkpoint: null,
    interrupts: [],
  };
}
