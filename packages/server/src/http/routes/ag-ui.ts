import type { Server } from "node:http";
import { performance } from "node:perf_hooks";
import { TrellisError } from "@trellis/checkpoint";
import { readPause } from "@trellis/protocol";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { WebSocketServer } from "ws";
import { type AgUiEvent, AgUiTranslator } from "../../ag-ui/ag-ui-events.js";
import {
  agUiTools,
  checkToolResults,
  closingResults,
  FRONTEND_TOOLS_KEY,
  refuseAgUiIdentity,
  stateUpdate,
} from "../../ag-ui/ag-ui-input.js";
import { asArrivedAt } from "../../runs/request-arrival.js";
import type { RunRecord, ThreadRecord } from "../../stores/run-store.js";
import { threadSnapshot } from "../../streams/api-shapes.js";
import { wireValue } from "../../streams/wire-values.js";
import type { Authenticate } from "../auth.js";
import { checkId, invalid, parseBody, readBody } from "../request-body.js";
import type { ServerContext, ServerEnv } from "../server-context.js";
import { type AgUiUpgrade, attachUpgrades } from "../ws-upgrade.js";

interface PreparedRun {
  run: RunRecord;
  translator: AgUiTranslator;
  input: Record<string, unknown>;
}

interface AgUiMessage {
  id: string;
  role: string;
  content?: unknown;
  toolCalls?: Array<{ id: string; type?: string; function: { name: string; arguments: string } }>;
  toolCallId?: string;
  name?: string;
  /** A tool message's failure (AG-UI `ToolMessage.error`). */
  error?: string;
}

/** AG-UI messages in Trellis's message shape (OpenAI-like, camelCase). */
function toStateMessage(m: AgUiMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: m.id,
    role: m.role === "developer" ? "system" : m.role,
    content: m.content ?? "",
  };
  if (m.toolCalls?.length) {
    out.toolCalls = m.toolCalls.map((t) => {
      let args: unknown = {};
      try {
        args = JSON.parse(t.function.arguments || "{}");
      } catch {
        args = t.function.arguments;
      }
      return { id: t.id, name: t.function.name, args };
    });
  }
  if (m.toolCallId) out.toolCallId = m.toolCallId;
  if (m.name) out.name = m.name;
  if (m.role === "tool" && typeof m.error === "string") {
    // a frontend tool that failed: an error result, which the model reads as one
    out.status = "error";
    if (!out.content) out.content = m.error;
  }
  return out;
}

/**
 * Checks an AG-UI `RunAgentInput`, creates the thread when new, and queues the run: new messages (those
 * the thread does not hold yet) and the state keys the client changed become the input; `resume`
 * entries answer the pending interrupts. Nothing is stored when the input is bad.
 *
 * - `tools` (frontend tools) go to the run's config (`configurable.frontend_tools`): agents built with
 *   `@trellis/agents` offer them to their model and end the run with such a call open (TOOL_CALL_*
 *   events, then RUN_FINISHED); the client runs it and sends the result as a `tool` message of the next
 *   input, which continues the agent. A tool result no open call waits for is refused, naming it; open
 *   calls the client went past with a new user message are closed with an error result first.
 * - `state`: keys the graph does not declare are refused (`UNKNOWN_STATE_KEY`, naming them); declared
 *   keys whose value differs from the thread's are applied as an update, through the graph's reducers
 *   and input check; `messages` comes from `messages`, not from `state`.
 * - the run's user is the authenticated one: `forwardedProps` or `state` naming it (a reserved key,
 *   `refuseAgUiIdentity`) is refused.
 * @internal
 */
export async function prepareAgUiRun(
  ctx: ServerContext,
  assistantId: string,
  body: Record<string, unknown>,
  user: string | null,
): Promise<PreparedRun> {
  refuseAgUiIdentity(body, ctx.authEnabled);
  // a graph id of trellis.json or an assistant made with POST /assistants (the run gets its config)
  const hosted = (await ctx.runs.assistant(assistantId, { user })).hosted;
  const graph = hosted.graph;
  if (typeof body.threadId !== "string") throw invalid("RunAgentInput.threadId must be a string.");
  if (typeof body.runId !== "string") throw invalid("RunAgentInput.runId must be a string.");
  const threadId = checkId(body.threadId, "threadId");
  const runId = checkId(body.runId, "runId");
  const messages = (body.messages ?? []) as AgUiMessage[];
  if (!Array.isArray(messages) || messages.some((m) => typeof m?.id !== "string" || typeof m.role !== "string")) {
    throw invalid("RunAgentInput.messages must be a list of messages with id and role.");
  }
  const tools = agUiTools(body.tools);
  if (await ctx.store.getRun(runId)) throw new TrellisError("CONFLICT", `Run id "${runId}" was used already.`);
  const as = { user };
  const thread: ThreadRecord | undefined = (await ctx.store.getThread(threadId))
    ? await ctx.runs.thread(threadId, as)
    : undefined;
  const snapshot = thread
    ? await ctx.runs.snapshot({ ...thread, graphId: thread.graphId ?? hosted.assistantId })
    : undefined;
  const resume = Array.isArray(body.resume)
    ? (body.resume as Array<{ interruptId?: unknown; status?: unknown; payload?: unknown }>)
    : [];
  let command: RunRecord["kwargs"]["command"] = null;
  let input: Record<string, unknown> | null = null;
  if (resume.length > 0) {
    const answers: Record<string, unknown> = {};
    for (const r of resume) {
      if (typeof r.interruptId !== "string") throw invalid("Each resume entry needs an interruptId.");
      if (r.status === "resolved") answers[r.interruptId] = r.payload ?? null;
    }
    const pending = new Set(snapshot?.interrupts.map((i) => i.id) ?? []);
    const unknown = Object.keys(answers).filter((id) => !pending.has(id));
    if (unknown.length || pending.size === 0) {
      throw new TrellisError(
        "NOTHING_TO_RESUME",
        `No pending interrupt ${unknown.join(", ") || ""} on thread "${threadId}".`,
      );
    }
    command = { resume: answers };
  } else {
    const known = new Set(
      ((snapshot?.values.messages as Array<{ id?: string }> | undefined) ?? []).map((m) => m.id).filter(Boolean),
    );
    const current = snapshot?.values as Record<string, unknown> | undefined;
    input = stateUpdate(body.state, graph.schemaKeys, current);
    if (graph.schemaKeys.includes("messages")) {
      const thread = (current?.messages as Array<Record<string, unknown>> | undefined) ?? [];
      const fresh = messages.filter((m) => !known.has(m.id)).map(toStateMessage);
      checkToolResults(thread, fresh);
      const closing = closingResults(thread, fresh, (snapshot?.interrupts.length ?? 0) > 0);
      if (fresh.length) input.messages = [...closing, ...fresh];
    }
    if (Object.keys(input).length === 0 && !snapshot?.checkpointId) {
      throw invalid("RunAgentInput has no new messages or state for this agent to start from.");
    }
  }
  const forwarded = (body.forwardedProps ?? {}) as Record<string, unknown>;
  const strategy = forwarded.multitask_strategy;
  const chosen =
    strategy === "enqueue" || strategy === "interrupt" || strategy === "rollback" || strategy === "reject"
      ? strategy
      : "reject";
  const run = await ctx.runs.start({
    assistantId,
    threadId,
    as,
    input,
    command,
    runId,
    metadata: { source: "ag-ui" },
    multitaskStrategy: chosen,
    kwargs: {
      streamMode: ["values", "messages-tuple", "custom"],
      ...(tools.length > 0 ? { config: { configurable: { [FRONTEND_TOOLS_KEY]: tools } } } : {}),
    },
  });
  return { run, translator: new AgUiTranslator(messages), input: body };
}

/**
 * The AG-UI events of a prepared run, from RUN_STARTED to RUN_FINISHED (with an `interrupt` outcome
 * carrying the pending interrupts, answerable with `resume` entries) or RUN_ERROR.
 * @internal
 */
export async function* agUiEvents(
  ctx: ServerContext,
  prepared: PreparedRun,
  signal: AbortSignal,
): AsyncGenerator<AgUiEvent> {
  const { run, translator } = prepared;
  const ids = { threadId: run.threadId, runId: run.runId };
  // the WebSocket door has no HTTP answer to wait on: the run is on disk before it is announced
  await ctx.store.syncCommits?.();
  yield { type: "RUN_STARTED", ...ids };
  let failed: { error: string; message: string } | undefined;
  for await (const e of ctx.manager.follow(run.runId, 0, { signal })) {
    if (e.event === "error") failed = e.data as { error: string; message: string };
    else yield* translator.translate(e.event, e.data);
  }
  if (signal.aborted) return;
  yield* translator.flush();
  const final = await ctx.store.getRun(run.runId);
  await ctx.store.syncCommits?.(); // the run's end, before it is announced
  if (failed || final?.status === "error" || final?.status === "timeout") {
    const error = failed ?? final?.error ?? { error: "INTERNAL", message: "The run failed." };
    yield { type: "RUN_ERROR", message: error.message, code: error.error };
    return;
  }
  const thread = await ctx.store.getThread(run.threadId);
  const snapshot = thread ? await threadSnapshot(ctx, thread) : undefined;
  if (snapshot && snapshot.interrupts.length > 0) {
    // read as every door reads a pause (@trellis/protocol): the question, and the kind with its form
    const interrupts = snapshot.interrupts.map((i) => {
      const pause = readPause(i.value);
      return {
        id: i.id,
        reason: "interrupt",
        message: pause.question,
        metadata: { value: wireValue(i.value), node: i.node, namespace: i.namespace, pause },
      };
    });
    yield { type: "RUN_FINISHED", ...ids, outcome: { type: "interrupt", interrupts } };
    return;
  }
  if (final?.status === "interrupted") {
    yield { type: "RUN_FINISHED", ...ids, outcome: { type: "cancelled" } };
    return;
  }
  yield {
    type: "RUN_FINISHED",
    ...ids,
    // the state in the Agent Server API's shapes, as STATE_SNAPSHOT and STATE_DELTA carry it
    result: snapshot ? wireValue(snapshot.values) : (translator.state ?? null),
    outcome: { type: "success" },
  };
}

/**
 * `POST /ag-ui/{assistant_id}`: takes an AG-UI `RunAgentInput` and answers with the run's AG-UI events
 * over SSE.
 *
 * @example
 * const agent = new HttpAgent({ url: `${url}/ag-ui/approval-flow` });
 */
export function agUiRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.post("/:assistant_id", async (c) => {
    const body = await readBody(c);
    const prepared = await prepareAgUiRun(ctx, c.req.param("assistant_id"), body, c.var.user);
    return streamSSE(c, async (sse) => {
      const abort = new AbortController();
      sse.onAbort(() => abort.abort());
      for await (const e of agUiEvents(ctx, prepared, abort.signal)) await sse.writeSSE({ data: JSON.stringify(e) });
    });
  });
  return app;
}

/** Messages of one AG-UI WebSocket that may wait for their turn before the socket stops reading. */
const WS_QUEUED_MAX = 4;

/**
 * The WebSocket binding of the AG-UI endpoint: `ws://host/ag-ui/{assistant_id}/ws`. Each text message
 * the client sends is a `RunAgentInput`; the server answers with that run's AG-UI events, one JSON
 * event per message. A bad input is answered with RUN_ERROR (code = the error code). Credentials go in
 * the upgrade request's headers, or as `?api_key=` / `?token=` for browsers. Upgrades are admitted by
 * {@link attachUpgrades} (which also hands `/apps/<id>/…` upgrades to the apps); a message larger than
 * `limits.bodyBytes` closes the socket with 1009 before it is read, a malformed frame with 1002.
 * @internal
 */
export function attachAgUiWebSocket(
  server: Server,
  ctx: ServerContext,
  authenticate: Authenticate,
): () => Promise<void> {
  // a message is a request body: the same limit (ws's own default would be 100 MiB)
  const wss = new WebSocketServer({ noServer: true, maxPayload: ctx.config.limits.bodyBytes });
  const serve: AgUiUpgrade = (req, socket, head, user, assistantId) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const abort = new AbortController();
      // ws closes the socket itself on a bad frame (1002, 1007) or an oversized message (1009); without
      // a listener the 'error' event would be thrown and end the process
      ws.on("error", () => undefined);
      ws.on("close", () => abort.abort());
      let queue = Promise.resolve();
      let waiting = 0;
      ws.on("message", (raw) => {
        // the message's arrival, before its turn waits: a resume answers the pause pending now
        const arrivedAt = performance.now();
        // turns run one at a time: stop reading while some wait, so a flood cannot pile up in memory
        if (++waiting >= WS_QUEUED_MAX) ws.pause();
        queue = queue.then(async () => {
          try {
            const body = parseBody(String(raw));
            const prepared = await asArrivedAt(arrivedAt, () => prepareAgUiRun(ctx, assistantId, body, user));
            for await (const e of agUiEvents(ctx, prepared, abort.signal)) ws.send(JSON.stringify(e));
          } catch (error) {
            const code =
              error instanceof TrellisError
                ? error.code
                : error instanceof SyntaxError
                  ? "INVALID_ARGUMENT"
                  : "INTERNAL";
            ws.send(JSON.stringify({ type: "RUN_ERROR", message: (error as Error).message, code }));
          } finally {
            if (--waiting < WS_QUEUED_MAX && ws.isPaused) ws.resume();
          }
        });
      });
    });
  };
  const detach = attachUpgrades(server, ctx, authenticate, serve);
  return async () => {
    detach();
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };
}
