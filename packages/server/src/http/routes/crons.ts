import { randomUUID } from "node:crypto";
import { TrellisError } from "@trellis/checkpoint";
import { type Context, Hono } from "hono";
import type { HostedGraph } from "../../assistants/graph-registry.js";
import { checkSchedule, checkTimezone } from "../../crons/cron-schedule.js";
import { nextTick } from "../../crons/cron-scheduler.js";
import { parseRunRequest } from "../../runs/run-request.js";
import { CRON_SORT_COLUMNS, type CronChanges, type CronRecord, type CronStore } from "../../stores/cron-store.js";
import { notFound } from "../http-errors.js";
import { checkId, field, invalid, readStoredBody } from "../request-body.js";
import type { ServerContext, ServerEnv } from "../server-context.js";

/** What the cron routes need beside the server's context: the store and the clock next runs are read with. */
export interface CronRouteParts {
  crons: CronStore;
  clock: { now(): number };
}

/** The body keys a cron keeps as the run it starts at each tick. */
const RUN_KEYS = [
  "input",
  "config",
  "context",
  "metadata",
  "interrupt_before",
  "interrupt_after",
  "multitask_strategy",
  "durability",
  "webhook",
  "checkpoint_during",
  "stream_mode",
  "stream_subgraphs",
  "stream_resumable",
] as const;

const SELECT_FIELDS = new Set([
  "cron_id",
  "assistant_id",
  "thread_id",
  "on_run_completed",
  "end_time",
  "schedule",
  "timezone",
  "created_at",
  "updated_at",
  "user_id",
  "payload",
  "next_run_date",
  "metadata",
  "enabled",
]);

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * A cron in the Agent Server's JSON shape.
 *
 * @example
 * cronJson(cron).next_run_date; // "2026-01-01T10:00:00.000Z"
 */
export function cronJson(cron: CronRecord) {
  return {
    cron_id: cron.cronId,
    assistant_id: cron.assistantId,
    thread_id: cron.threadId,
    on_run_completed: cron.onRunCompleted,
    end_time: iso(cron.endTimeMs),
    schedule: cron.schedule,
    timezone: cron.timezone,
    created_at: cron.createdAt,
    updated_at: cron.updatedAt,
    payload: { ...cron.payload, assistant_id: cron.assistantId },
    user_id: cron.userId,
    next_run_date: iso(cron.nextRunMs),
    metadata: cron.metadata,
    enabled: cron.enabled,
  };
}

function endTime(body: Record<string, unknown>): number | null | undefined {
  const raw = body.end_time;
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  const ms = typeof raw === "string" ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw invalid('"end_time" must be an ISO 8601 date-time, such as "2026-12-31T23:59:00Z", or null for no end.');
  }
  return ms;
}

/** The run part of a body, checked against the assistant's graph as a run body would be. */
function runPayload(
  hosted: HostedGraph,
  assistantId: string,
  body: Record<string, unknown>,
  authEnabled: boolean,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const key of RUN_KEYS) if (body[key] !== undefined && body[key] !== null) payload[key] = body[key];
  const { request } = parseRunRequest({ ...payload, assistant_id: assistantId }, () => hosted, {
    streamDefault: ["values"],
    onDisconnectDefault: "continue",
    authEnabled,
  });
  if (request.kwargs.input !== null) hosted.graph.checkInput(undefined, request.kwargs.input);
  return payload;
}

/**
 * Crons, as LangGraph's platform serves them: `POST /runs/crons` (stateless: a new thread per tick),
 * `POST /threads/{id}/runs/crons` (every tick runs on that thread), `POST /runs/crons/search` and
 * `/count`, `GET`/`PATCH`/`DELETE /runs/crons/{id}`. With auth on a cron belongs to its creator: other
 * users get a 404, and its runs are started as its creator. An operator finds every user's crons in
 * search and count and may get and delete any of them (not change them). A user has at most
 * `limits.cronsPerUser` crons (then a 429).
 *
 * @example
 * app.route("/", cronRoutes(ctx, { crons: scheduler.crons, clock: scheduler.clock }));
 */
export function cronRoutes(ctx: ServerContext, parts: CronRouteParts): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const { crons, clock } = parts;
  const owner = (c: Context<ServerEnv>) => (ctx.authEnabled ? c.var.user : null);

  /** The cron, if the user owns it (or, with `operator`, is an operator); otherwise a 404. */
  const cronFor = async (c: Context<ServerEnv>, cronId: string, operator = false) => {
    checkId(cronId, "cron_id");
    const cron = await crons.get(cronId);
    const allowed = !ctx.authEnabled || cron?.userId === c.var.user || (operator && ctx.isOperator(c.var.user));
    if (!cron || !allowed) throw notFound("Cron", cronId);
    return cron;
  };
  // an operator's search and count see every user's crons (`user_id` tells whose)
  const visibleTo = (c: Context<ServerEnv>) =>
    ctx.authEnabled && !ctx.isOperator(c.var.user) ? (c.var.user ?? "") : undefined;

  const create = async (c: Context<ServerEnv>, threadId: string | null) => {
    const body = await readStoredBody(c);
    const schedule = checkSchedule(body.schedule);
    const timezone = checkTimezone(body.timezone);
    const assistantId = field.string(body, "assistant_id");
    if (!assistantId) {
      throw invalid(
        '"assistant_id" is required: a graph id of trellis.json, or an assistant made with POST /assistants.',
      );
    }
    const { hosted } = await ctx.runs.assistant(assistantId, { user: c.var.user });
    if (threadId !== null) {
      const thread = await ctx.threadFor(c.var.user, threadId);
      if (thread.graphId && thread.graphId !== hosted.assistantId) {
        throw new TrellisError(
          "CONFLICT",
          `Thread "${threadId}" belongs to graph "${thread.graphId}": schedule an assistant of that graph on it.`,
        );
      }
    }
    const payload = runPayload(hosted, assistantId, body, ctx.authEnabled);
    await ctx.limits.checkCrons(owner(c));
    const onRunCompleted = field.oneOf(body, "on_run_completed", ["delete", "keep"] as const) ?? "delete";
    const enabled = field.boolean(body, "enabled") ?? true;
    const endTimeMs = endTime(body) ?? null;
    const now = clock.now();
    const stamp = new Date(now).toISOString();
    const cron: CronRecord = {
      cronId: randomUUID(),
      assistantId,
      threadId,
      userId: owner(c),
      schedule,
      timezone,
      payload,
      metadata: field.object(body, "metadata") ?? {},
      endTimeMs,
      nextRunMs: nextTick({ schedule, timezone, endTimeMs }, now),
      onRunCompleted: threadId === null ? onRunCompleted : null,
      enabled,
      createdAt: stamp,
      updatedAt: stamp,
    };
    await crons.create(cron);
    return c.json(cronJson(cron));
  };

  app.post("/runs/crons", (c) => create(c, null));
  app.post("/threads/:thread_id/runs/crons", (c) => create(c, c.req.param("thread_id")));

  app.post("/runs/crons/search", async (c) => {
    const body = await readStoredBody(c);
    const select = field.stringList(body, "select");
    const unknown = select?.filter((f) => !SELECT_FIELDS.has(f)) ?? [];
    if (unknown.length) {
      throw invalid(`"select" names unknown fields: ${unknown.join(", ")}. Known: ${[...SELECT_FIELDS].join(", ")}.`);
    }
    const found = await crons.search({
      assistantId: field.string(body, "assistant_id"),
      threadId: field.string(body, "thread_id"),
      enabled: field.boolean(body, "enabled"),
      metadata: field.filter(body, "metadata"),
      userId: visibleTo(c),
      limit: field.int(body, "limit", { min: 1, max: 1000 }) ?? 10,
      offset: field.int(body, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0,
      sortBy:
        field.oneOf(body, "sort_by", Object.keys(CRON_SORT_COLUMNS) as Array<keyof typeof CRON_SORT_COLUMNS>) ??
        "created_at",
      sortOrder: field.oneOf(body, "sort_order", ["asc", "desc"] as const) ?? "desc",
    });
    const shaped = found.map(cronJson);
    if (!select?.length) return c.json(shaped);
    return c.json(shaped.map((cron) => Object.fromEntries(Object.entries(cron).filter(([k]) => select.includes(k)))));
  });

  app.post("/runs/crons/count", async (c) => {
    const body = await readStoredBody(c);
    return c.json(
      await crons.count({
        assistantId: field.string(body, "assistant_id"),
        threadId: field.string(body, "thread_id"),
        metadata: field.filter(body, "metadata"),
        userId: visibleTo(c),
      }),
    );
  });

  app.get("/runs/crons/:cron_id", async (c) => c.json(cronJson(await cronFor(c, c.req.param("cron_id"), true))));

  app.patch("/runs/crons/:cron_id", async (c) => {
    const cron = await cronFor(c, c.req.param("cron_id"));
    const body = await readStoredBody(c);
    const now = clock.now();
    const changes: CronChanges = { updatedAt: new Date(now).toISOString() };
    const schedule = body.schedule === undefined ? cron.schedule : checkSchedule(body.schedule);
    const timezone = body.timezone === undefined ? cron.timezone : checkTimezone(body.timezone);
    const endTimeMs = endTime(body);
    const enabled = field.boolean(body, "enabled");
    const runKeys = RUN_KEYS.filter((k) => body[k] !== undefined);
    if (runKeys.length) {
      const merged = { ...cron.payload };
      for (const k of runKeys) {
        if (body[k] === null) delete merged[k];
        else merged[k] = body[k];
      }
      const { hosted } = await ctx.runs.assistant(cron.assistantId, { user: c.var.user });
      changes.payload = runPayload(hosted, cron.assistantId, merged, ctx.authEnabled);
    }
    const metadata = field.object(body, "metadata");
    if (metadata) changes.metadata = metadata;
    const onRunCompleted = field.oneOf(body, "on_run_completed", ["delete", "keep"] as const);
    if (onRunCompleted && cron.threadId === null) changes.onRunCompleted = onRunCompleted;
    if (enabled !== undefined) changes.enabled = enabled;
    if (endTimeMs !== undefined) changes.endTimeMs = endTimeMs;
    const moved = body.schedule !== undefined || body.timezone !== undefined || endTimeMs !== undefined;
    if (moved || enabled === true) {
      // the next tick is after now, so a tick already taken is never taken again
      changes.schedule = schedule;
      changes.timezone = timezone;
      const end = endTimeMs === undefined ? cron.endTimeMs : endTimeMs;
      changes.nextRunMs = nextTick({ schedule, timezone, endTimeMs: end }, now);
    }
    const updated = await crons.update(cron.cronId, changes);
    if (!updated) throw notFound("Cron", cron.cronId);
    return c.json(cronJson(updated));
  });

  app.delete("/runs/crons/:cron_id", async (c) => {
    const cron = await cronFor(c, c.req.param("cron_id"), true);
    await crons.delete(cron.cronId);
    return c.body(null, 204);
  });

  return app;
}
