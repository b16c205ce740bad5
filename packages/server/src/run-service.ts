import { randomUUID } from "node:crypto";
import { type CheckpointSaver, isTrellisErrorCode, TrellisError } from "@trellis/checkpoint";
import { bindResume, type Interrupt, type StateSnapshot } from "@trellis/core";
import {
  type AssistantRegistry,
  type ResolvedAssistant,
  systemAssistant,
  withAssistantConfig,
} from "./assistant-registry.js";
import type { HostedGraph } from "./graph-registry.js";
import { notFound } from "./http-errors.js";
import { checkId } from "./request-body.js";
import { newRunRecord, type RunManager } from "./run-manager.js";
import type {
  CancelAction,
  MultitaskStrategy,
  RunKwargs,
  RunRecord,
  RunStatus,
  RunStore,
  StoredEvent,
  ThreadRecord,
} from "./run-store.js";
import { traceContextKwargs } from "./trace-context.js";
import type { UserLimits } from "./user-limits.js";

/**
 * Who asks for a run: a user (the authenticated id when auth is on, null when it is off), checked
 * against the thread's owner; or `"app"`, an application's own trusted route code (a webhook that
 * verified its caller), which may reach any thread of its own graph.
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

/** A command's update as the Agent Server sends it: an object, or a list of `[key, value]` pairs. */
function toUpdate(update: unknown): unknown {
  return Array.isArray(update) ? Object.fromEntries(update as Array<[string, unknown]>) : update;
}

/**
 * A thread belongs to the graph of its first run: an assistant of another graph on it is a 409; any
 * assistant of the same graph may run it.
 */
function checkBinding(thread: ThreadRecord | undefined, graphId: string, assistantId: string): void {
  if (!thread?.graphId || thread.graphId === graphId) return;
  throw new TrellisError(
    "CONFLICT",
    `Thread "${thread.threadId}" belongs to graph "${thread.graphId}": run it with an assistant of that graph (assistant_id "${thread.graphId}" or one made from it), or start a new thread for "${assistantId}" (graph "${graphId}").`,
    { details: { threadId: thread.threadId, graphId: thread.graphId } },
  );
}

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
 * to the interrupts pending at that moment (`bindResume`; a queued resume that finds another pause
 * fails with `RESUME_MISMATCH` and changes nothing), and an input that arrives while the thread waits
 * on an interrupt follows the graph's `onInputWhilePaused` policy (`decidePausedInput`).
 *
 * @example
 * // in an app's routes (`ctx.runs`): one conversation turn through the queue
 * const end = await runs.invoke({ assistantId: "tutor", threadId, as: "app", input: { messages: [msg] } });
 * if (end.interrupts.length) askUser(end.interrupts[0].value);
 */
export class RunService {
  readonly #p: RunServiceParts;

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
    await this.#accept(existing, hosted, kwargs);
    const threadId = existing?.threadId ?? request.threadId ?? randomUUID();
    const owner = this.#ownerOf(request.as);
    // the owner's limits (limits.queuedRunsPerUser, threadsPerUser): a 429 before anything is stored
    await this.#p.limits?.checkRuns(owner);
    if (!existing) await this.#p.limits?.checkThreads(owner);
    let created = false;
    if (!existing) {
      created = await this.#create(threadId, { assistantId, graphId }, owner);
      if (!created) {
        // a concurrent first message made it a moment ago (a double-sent first turn): join that thread
        existing = await this.#existing(threadId, request);
        checkBinding(existing, graphId, assistantId);
        await this.#accept(existing, hosted, kwargs);
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
   * if (error) throw error; // 409 THREAD_PAUSED, 400 RESUME_MISMATCH, …
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

  /**
   * The core's rules for what a run may do to the thread as it stands now; rewrites `kwargs` to bind a
   * resume (or an input the graph takes as an answer) to the pause pending now.
   */
  async #accept(thread: ThreadRecord | undefined, hosted: HostedGraph, kwargs: RunKwargs): Promise<void> {
    const threadId = thread?.threadId;
    if (kwargs.checkpointId !== null) {
      if (!thread || !(await this.#p.saver.get({ threadId: thread.threadId, checkpointId: kwargs.checkpointId }))) {
        throw new TrellisError("CHECKPOINT_NOT_FOUND", `The thread has no checkpoint ${kwargs.checkpointId}.`);
      }
      return; // a fork: the run starts from that checkpoint, not from the pause at the head
    }
    const snapshot = thread ? await hosted.graph.getState({ threadId: thread.threadId }) : undefined;
    const command = kwargs.command;
    // the graph's own check of what the input or update would make of the state: a 400 now, not a failed run
    const proposed = command?.update ?? kwargs.input;
    if (proposed !== null && proposed !== undefined) {
      hosted.graph.checkInput(snapshot?.values as Record<string, unknown> | undefined, toUpdate(proposed));
    }
    // the graph's declared config and context schemas (LangGraph's config_schema, context_schema)
    hosted.graph.checkConfig({ configurable: kwargs.config.configurable, context: kwargs.context });
    if (command?.resume !== undefined) {
      if (!snapshot?.checkpointId) {
        throw new TrellisError("NOTHING_TO_RESUME", "The thread has no checkpoint yet: start it with an input.");
      }
      const busy = (await this.#p.store.activeRuns(thread?.threadId as string)).length > 0;
      if (busy && snapshot.interrupts.length === 0) {
        // a run ahead of it is answering the pause, or has not paused yet: this resume cannot know what
        // it will answer, so it applies only if the thread is still where it stands now
        kwargs.expectedCheckpointId = snapshot.checkpointId;
        return;
      }
      const binding = bindResume(snapshot, command.resume, threadId);
      // the answers against the resumeSchema of the nodes that paused: a 400 now, the thread still paused
      if (binding.kind === "interrupts") hosted.graph.checkResume(snapshot.interrupts, binding.resume);
      if (binding.kind === "interrupts") kwargs.command = { ...command, resume: binding.resume };
      kwargs.expectedCheckpointId = snapshot.checkpointId;
      return;
    }
    if (command !== null || kwargs.input === null) {
      if (!snapshot?.checkpointId) {
        throw new TrellisError("NOTHING_TO_RESUME", "The thread has no checkpoint yet: start it with an input.");
      }
      return;
    }
    const input = kwargs.input;
    if (!snapshot?.checkpointId || typeof input !== "object" || Array.isArray(input)) return;
    const decision = hosted.graph.decideInput(snapshot, input as Record<string, unknown>, threadId);
    if (decision.kind === "start") return;
    if (decision.kind === "resume") hosted.graph.checkResume(snapshot.interrupts, decision.resume);
    // the input answers the pause pending now (an interrupt, or a static breakpoint), and only that one
    kwargs.input = null;
    kwargs.command = decision.kind === "resume" ? { resume: decision.resume } : { update: decision.update };
    kwargs.expectedCheckpointId = snapshot.checkpointId;
  }
}
