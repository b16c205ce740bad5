import { randomUUID } from "node:crypto";
import { type CheckpointSaver, isTrellisErrorCode, TrellisError } from "@trellis/checkpoint";
import type { Interrupt, StateSnapshot } from "@trellis/core";
import {
  type AssistantRegistry,
  type ResolvedAssistant,
  systemAssistant,
  withAssistantConfig,
} from "../assistants/assistant-registry.js";
import type { HostedGraph } from "../assistants/graph-registry.js";
import { notFound } from "../http/http-errors.js";
import { checkId } from "../http/request-body.js";
import { traceContextKwargs } from "../operations/trace-context.js";
import type {
  CancelAction,
  MultitaskStrategy,
  RunKwargs,
  RunRecord,
  RunStatus,
  RunStore,
  StoredEvent,
  ThreadRecord,
} from "../stores/run-store.js";
import type { UserLimits } from "../stores/user-limits.js";
import { requestArrival } from "./request-arrival.js";
import { acceptRun, checkBinding } from "./resume-binding.js";
import { refuseReservedKeys } from "./run-identity.js";
import { newRunRecord, type RunManager } from "./run-manager.js";

/**
 * Who asks for a run: a user (the authenticated id when auth is on, null when it is off), checked
 * against the thread's owner; or `"app"`, an application's own trusted route code (a webhook that
 * verified its caller), which may reach any thread of its own graph. The run acts for that user (its
 * nodes' `ctx.user`); an `"app"` run acts for the thread's owner (none for a thread no user owns).
 *
 * @example
 * await server.runs.start({ assistantId: "inspection", threadId, as: { user: "ana" }, input });
 * await server.runs.start({ assistantId: "inspection", threadId, as: "app", command: { resume: "approve" } }); // a verified webhook
 */
export type RunPrincipal = { user: string | null } | "app";

/**
 * What {@link RunService.start} is asked to run.
 *
 * @example
 * const request: StartRun = {
 *   assistantId: "tutor",
 *   threadId,
 *   as: { user: null },
 *   input: { messages: [userMessage("Hi")] },
 *   multitaskStrategy: "enqueue",
 * };
 * const run = await server.runs.start(request);
 */
export interface StartRun {
  /**
   * The assistant to run: a graph id of `trellis.json` (its system assistant), or an assistant made
   * with `POST /assistants`, whose config and context the run gets under its own.
   */
  assistantId: string;
  /** The thread; absent for a new thread with a random id. */
  threadId?: string | undefined;
  as: RunPrincipal;
  /** A state update to start (or continue) the thread with; null with a command, or to continue. */
  input?: unknown;
  /** `resume` answers the pending interrupt(s); `update`/`goto` route. */
  command?: RunKwargs["command"];
  /** Default: a random UUID. */
  runId?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  /** What to do when the thread is busy. Default `reject`. */
  multitaskStrategy?: MultitaskStrategy | undefined;
  /** A `threadId` that does not exist: `create` it (default) or `reject` with 404. */
  ifNotExists?: "create" | "reject" | undefined;
  /** The rest of the run's options (stream modes, config, breakpoints, checkpoint, durability). */
  kwargs?: Partial<Omit<RunKwargs, "input" | "command">> | undefined;
  /**
   * When the request arrived (`performance.now()` of this process). Default: the arrival the server
   * stamped on the HTTP request or WebSocket message being handled, else the call of `start`. A resume
   * that names no interrupt answers the pause pending then, never a later one.
   */
  arrivedAt?: number | undefined;
}

/**
 * How a run ended, from {@link RunService.wait}.
 *
 * @example
 * const end: RunEnd = await server.runs.invoke({ assistantId: "tutor", threadId, as: { user: null }, input });
 * if (end.paused) console.log("waiting on", end.interrupts.map((i) => i.value));
 */
export interface RunEnd {
  run: RunRecord;
  /**
   * The run's status as LangGraph reports it: a run that reached a pause is `success` (see `paused`);
   * `interrupted` is a run that was stopped (cancel, multitask `interrupt`/`rollback`).
   */
  status: RunStatus;
  /** The run succeeded up to a pause: the thread waits at an interrupt or a breakpoint (`next` is not empty). */
  paused: boolean;
  /** The thread's values after the run (empty when the run failed before any checkpoint). */
  values: Record<string, unknown>;
  /** The interrupts the thread waits on now. */
  interrupts: Interrupt[];
  error: RunRecord["error"];
}

/**
 * What the run service works with: the server's parts.
 *
 * @example
 * const parts: RunServiceParts = { store, saver, manager, graphs, authEnabled: false };
 * const runs = new RunService(parts);
 */
export interface RunServiceParts {
  store: RunStore;
  saver: CheckpointSaver;
  manager: RunManager;
  graphs: ReadonlyMap<string, HostedGraph>;
  /** Assistants as data; without it, the assistants are the graphs (their system assistants). */
  assistants?: AssistantRegistry;
  authEnabled: boolean;
  /** The per-user limits on queued runs and threads (none without). */
  limits?: UserLimits;
}

/**
 * A thread that is being deleted, as {@link ThreadDataHook}s get it.
 *
 * @example
 * const gone: DeletedThread = { threadId: "t1", graphId: "market-assistant", owner: "alice" };
 */
export interface DeletedThread {
  threadId: string;
  /** The graph the thread is bound to (null: it never ran). */
  graphId: string | null;
  /** Its owner (null with auth off, or a thread no user owns). */
  owner: string | null;
}

/**
 * Deletes what an app keeps for a thread outside the server's own stores (a transcript in Redis, files
 * on disk). Called for every thread the server deletes, before its record goes, so data never outlives
 * its thread: a later thread with the same id starts empty. Must be idempotent (a thread without data of
 * the app is a no-op); a hook that throws fails the delete, which keeps the thread so it can be retried.
 *
 * @example
 * ctx.onThreadDeleted?.(async ({ threadId }) => transcripts.delete(threadId));
 */
export type ThreadDataHook = (thread: DeletedThread) => Promise<void> | void;

const DEFAULT_KWARGS: Omit<RunKwargs, "input" | "command"> = {
  config: {},
  streamMode: ["values"],
  streamSubgraphs: false,
  interruptBefore: null,
  interruptAfter: null,
  checkpointId: null,
  durability: null,
};

/**
 * The one run path of the server. Every door — the Agent Server API, AG-UI over SSE and WebSocket,
 * applications' routes and webhooks, the CLI and the studio — starts, follows, waits for and cancels
 * runs here, so a thread has one record (visible to `GET /threads/{id}` and `/threads/search`, with
 * `graph_id` in its metadata), is bound to one graph, obeys the multitask strategy and the queue, and
 * streams the same events whichever door touched it last.
 *
 * On accepting a run it applies the core's rules, never a copy of them: a resume is checked and bound
 * to the interrupts pending when its request arrived (`bindResume`; a resume that names no interrupt
 * while the thread changed since it arrived, or while a run is executing on it, is refused with
 * `RESUME_MISMATCH`; a queued resume that finds another pause at its turn fails the same way and changes
 * nothing), and an input that arrives while the thread waits on an interrupt follows the graph's
 * `onInputWhilePaused` policy (`decidePausedInput`).
 *
 * @example
 * // in an app's routes (`ctx.runs`): one conversation turn through the queue
 * const end = await runs.invoke({ assistantId: "tutor", threadId, as: "app", input: { messages: [msg] } });
 * if (end.interrupts.length) askUser(end.interrupts[0].value);
 */
export class RunService {
  readonly #p: RunServiceParts;
  readonly #threadData = new Set<ThreadDataHook>();

  constructor(parts: RunServiceParts) {
    this.#p = parts;
  }

  /**
   * The assistant and its graph if `as` may use it, otherwise a 404: a graph id of `trellis.json` or an
   * assistant made with `POST /assistants`.
   */
  async assistant(assistantId: string, as: RunPrincipal): Promise<ResolvedAssistant> {
    if (this.#p.assistants) return this.#p.assistants.get(assistantId, as);
    const hosted = this.graph(assistantId);
    return { assistant: systemAssistant(hosted), hosted };
  }

  /** The hosted graph of a graph id (= its system assistant's id), or a 404. */
  graph(assistantId: string): HostedGraph {
    const hosted = this.#p.graphs.get(assistantId);
    if (!hosted) throw notFound("Assistant", assistantId);
    return hosted;
  }

  /** The thread if it exists and `as` may see it; otherwise a 404 (whether absent or someone else's). */
  async thread(threadId: string, as: RunPrincipal): Promise<ThreadRecord> {
    const thread = await this.#p.store.getThread(threadId);
    if (!thread || !this.#mayUse(thread, as)) throw notFound("Thread", threadId);
    return thread;
  }

  /** The thread's current state, read through the graph bound to it (undefined before its first run). */
  async snapshot(thread: ThreadRecord): Promise<StateSnapshot | undefined> {
    const graphId = thread.graphId ?? (thread.metadata.graph_id as string | undefined);
    const hosted = graphId ? this.#p.graphs.get(graphId) : undefined;
    return hosted?.graph.getState({ threadId: thread.threadId });
  }

  /**
   * Checks and queues a run; creates its thread when new. Throws before anything is stored when the
   * run could only fail: an unknown assistant or thread (404), a thread bound to another graph (409),
   * a resume that matches no pending interrupt (400/409), an input the graph refuses while paused
   * (409 `THREAD_PAUSED`), a busy thread under `reject` (409).
   */
  async start(request: StartRun): Promise<RunRecord> {
    // first, before any await: the pause a resume answers is the one pending when its request arrived
    const arrivedAt = request.arrivedAt ?? requestArrival();
    // who asks is the server's to say: a client (or app code) naming the user itself is refused
    refuseReservedKeys(request.kwargs?.config?.configurable, "config.configurable", this.#p.authEnabled);
    refuseReservedKeys(request.kwargs?.context, "context", this.#p.authEnabled);
    const { assistant, hosted } = await this.assistant(request.assistantId, request.as);
    const assistantId = assistant.assistantId;
    const graphId = hosted.assistantId;
    const runId = request.runId ?? randomUUID();
    checkId(runId, "run_id");
    let existing = request.threadId === undefined ? undefined : await this.#existing(request.threadId, request);
    checkBinding(existing, graphId, assistantId);
    // the assistant's config and context under the run's own (the run wins key by key), as LangGraph merges them
    const kwargs: RunKwargs = withAssistantConfig(assistant, {
      ...DEFAULT_KWARGS,
      ...request.kwargs,
      input: request.input ?? null,
      command: request.command ?? null,
      graphId,
      ...traceContextKwargs(),
    });
    await acceptRun(this.#p, existing, hosted, { kwargs, arrivedAt });
    const threadId = existing?.threadId ?? request.threadId ?? randomUUID();
    const requester = this.#ownerOf(request.as);
    // the requester's limits (limits.queuedRunsPerUser, threadsPerUser): a 429 before anything is stored
    await this.#p.limits?.checkRuns(requester);
    if (!existing) await this.#p.limits?.checkThreads(requester);
    let created = false;
    if (!existing) {
      created = await this.#create(threadId, { assistantId, graphId }, requester);
      if (!created) {
        // a concurrent first message made it a moment ago (a double-sent first turn): join that thread
        existing = await this.#existing(threadId, request);
        checkBinding(existing, graphId, assistantId);
        await acceptRun(this.#p, existing, hosted, { kwargs, arrivedAt });
      }
    }
    if (
      existing &&
      (!existing.graphId || existing.metadata.graph_id !== graphId || existing.metadata.assistant_id !== assistantId)
    ) {
      // a thread made with POST /threads takes its graph from its first run; clients search by graph_id,
      // and by assistant_id (the assistant of its latest run, as LangGraph records it)
      await this.#p.store.updateThread(threadId, {
        graphId,
        metadata: { ...existing.metadata, graph_id: graphId, assistant_id: assistantId },
      });
    }
    const strategy = request.multitaskStrategy ?? "reject";
    // the run acts for its user; an app's own run (a verified webhook) for the thread's owner
    const owner = request.as === "app" ? (existing?.owner ?? null) : this.#ownerOf(request.as);
    const record = newRunRecord({
      runId,
      threadId,
      assistantId,
      metadata: request.metadata ?? {},
      kwargs,
      multitaskStrategy: strategy,
      owner,
    });
    try {
      await this.#p.manager.submit(record, strategy);
    } catch (error) {
      if (created && request.threadId === undefined) await this.#p.store.deleteThread(threadId);
      throw error;
    }
    return record;
  }

  /** The run's events numbered above `afterSeq`, stored then live, until it ends. */
  follow(
    runId: string,
    afterSeq = 0,
    options: { modes?: readonly string[] | undefined; signal?: AbortSignal | undefined } = {},
  ): AsyncGenerator<StoredEvent> {
    return this.#p.manager.follow(runId, afterSeq, options);
  }

  /** Waits for the run to end and reads how it left the thread. */
  async wait(runId: string, signal?: AbortSignal): Promise<RunEnd> {
    const run = await this.#p.manager.waitFor(runId, signal);
    if (!run) throw notFound("Run", runId);
    const thread = await this.#p.store.getThread(run.threadId);
    const snapshot = thread ? await this.snapshot(thread) : undefined;
    return {
      run,
      status: run.status,
      paused: run.status === "success" && (snapshot?.next.length ?? 0) > 0,
      values: (snapshot?.values as Record<string, unknown> | undefined) ?? {},
      interrupts: snapshot?.interrupts ?? [],
      error: run.error,
    };
  }

  /** {@link start} then {@link wait}: one turn of a conversation through the queue. */
  async invoke(request: StartRun, signal?: AbortSignal): Promise<RunEnd> {
    const run = await this.start(request);
    return this.wait(run.runId, signal);
  }

  /**
   * The error of a run that failed, as a `TrellisError` with the run's code, message and details (for
   * `THREAD_PAUSED`, the pending interrupts): what an app route throws to answer with the right status.
   * Undefined for a run that did not fail.
   *
   * @example
   * const end = await runs.invoke(request);
   * const error = runs.errorOf(end);
   * if (error) throw error; // 409 THREAD_PAUSED, 409 RESUME_MISMATCH, …
   */
  errorOf(end: Pick<RunEnd, "status" | "error">): TrellisError | undefined {
    if (end.status !== "error" && end.status !== "timeout") return undefined;
    const e = end.error ?? { error: "INTERNAL", message: "The run failed." };
    // a row stored before every run error had a Trellis code may hold another one
    const code = isTrellisErrorCode(e.error) ? e.error : "INTERNAL";
    const details = e.details as Record<string, unknown> | undefined;
    return new TrellisError(code, e.message, details ? { details } : {});
  }

  /** Cancels a run: `interrupt` keeps its progress, `rollback` undoes it; with `wait`, until it stopped. */
  async cancel(run: RunRecord, action: CancelAction = "interrupt", wait = false): Promise<void> {
    await this.#p.manager.cancel(run, action, wait);
  }

  /**
   * Registers what an app keeps per thread: `hook` runs for every thread the server deletes
   * (`DELETE /threads/{id}`, an assistant deleted with its threads, a stateless run's or a cron tick's
   * temporary thread). Returns a function that unregisters it. Apps get it as `ctx.onThreadDeleted`.
   *
   * @example
   * const off = server.runs.onThreadDeleted(async ({ threadId }) => files.removeDir(threadId));
   */
  onThreadDeleted(hook: ThreadDataHook): () => void {
    this.#threadData.add(hook);
    return () => this.#threadData.delete(hook);
  }

  /**
   * Deletes a thread and everything kept for it, the one way every door does it: its active runs are
   * cancelled (and waited for), the apps' data goes ({@link onThreadDeleted}), then its checkpoints,
   * then its record with its runs. The record goes last, so a delete that fails half-way leaves a thread
   * its owner can delete again, never data that a new thread with the same id would find.
   *
   * With `temporary` (a stateless run's thread, after its answer) the checkpoints' deletion commits like
   * the record's, without waiting for the disk ({@link RunStore.commitQuickly}).
   *
   * @example
   * await runs.deleteThread(await runs.thread(threadId, { user }));
   */
  async deleteThread(thread: ThreadRecord, options: { temporary?: boolean } = {}): Promise<void> {
    for (const run of await this.#p.store.activeRuns(thread.threadId)) {
      await this.#p.manager.cancel(run, "interrupt", true);
    }
    const gone: DeletedThread = {
      threadId: thread.threadId,
      graphId: thread.graphId ?? null,
      owner: thread.owner ?? null,
    };
    for (const hook of this.#threadData) await hook(gone);
    const store = this.#p.store;
    const deleteCheckpoints = () => this.#p.saver.deleteThread(thread.threadId);
    await (options.temporary && store.commitQuickly ? store.commitQuickly(deleteCheckpoints) : deleteCheckpoints());
    await store.deleteThread(thread.threadId);
  }

  /** Creates the thread record; false when another request created it first. */
  async #create(
    threadId: string,
    ids: { assistantId: string; graphId: string },
    owner: string | null,
  ): Promise<boolean> {
    const now = new Date().toISOString();
    try {
      await this.#p.store.createThread(
        {
          threadId,
          createdAt: now,
          updatedAt: now,
          metadata: { graph_id: ids.graphId, assistant_id: ids.assistantId, ...(owner !== null ? { owner } : {}) },
          status: "idle",
          owner,
          graphId: ids.graphId,
          error: null,
        },
        "raise",
      );
      return true;
    } catch (error) {
      if (error instanceof TrellisError && error.code === "CONFLICT") return false;
      throw error;
    }
  }

  #mayUse(thread: ThreadRecord, as: RunPrincipal): boolean {
    if (as === "app" || !this.#p.authEnabled) return true;
    return thread.owner === as.user;
  }

  #ownerOf(as: RunPrincipal): string | null {
    return as === "app" || !this.#p.authEnabled ? null : as.user;
  }

  async #existing(threadId: string, request: StartRun): Promise<ThreadRecord | undefined> {
    checkId(threadId, "thread_id");
    const thread = await this.#p.store.getThread(threadId);
    if (thread) {
      if (!this.#mayUse(thread, request.as)) throw notFound("Thread", threadId);
      return thread;
    }
    if (request.ifNotExists === "reject") throw notFound("Thread", threadId);
    return undefined;
  }
}
