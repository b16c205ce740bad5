/**
 * The Agent Server API's JSON, as Trellis's server writes it and its studio reads it (snake_case, as
 * LangGraph's clients speak it). Types only: the server's serialisers (`runJson`, `threadJson`,
 * `stateJson`, `assistantJson`, `graphJson`, `/info`) are declared to return these, and the studio
 * reads them with `import type`, so a change on one side that the other does not follow fails
 * `tsc -b` (and the studio's typecheck) instead of drifting.
 */

/**
 * A thread's status: `busy` while a run is queued or running on it.
 *
 * @example
 * const thread = (await (await fetch(`${url}/threads/${threadId}`)).json()) as ApiThread;
 * const status: ApiThreadStatus = thread.status; // "interrupted" while it waits on a person
 */
export type ApiThreadStatus = "idle" | "busy" | "interrupted" | "error";

/**
 * A run's status, as LangGraph's Agent Server reports it: a run that reached a pause is `success` (its
 * thread `interrupted`); `interrupted` is a run that was stopped.
 *
 * @example
 * const run = (await (await fetch(`${url}/threads/${threadId}/runs/${runId}`)).json()) as ApiRun;
 * const status: ApiRunStatus = run.status;
 */
export type ApiRunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";

/**
 * What to do with a new run when the thread already has one.
 *
 * @example
 * const strategy: ApiMultitaskStrategy = "enqueue";
 * await client.runs.create(threadId, "tutor", { input, multitaskStrategy: strategy });
 */
export type ApiMultitaskStrategy = "reject" | "interrupt" | "rollback" | "enqueue";

/**
 * A pending interrupt: its id (resume by it), its value (read it with `readPause`), its namespace.
 *
 * @example
 * const thread = (await (await fetch(`${url}/threads/${threadId}`)).json()) as ApiThread;
 * const pending: ApiInterrupt[] = Object.values(thread.interrupts).flat();
 * const questions = pending.map((i) => readPause(i.value).question);
 */
export interface ApiInterrupt {
  id: string;
  value: unknown;
  when: "during";
  resumable: boolean;
  ns: string[];
}

/**
 * A checkpoint's address.
 *
 * @example
 * const state = (await (await fetch(`${url}/threads/${threadId}/state`)).json()) as ApiThreadState;
 * const at: ApiCheckpoint = state.checkpoint;
 * console.log(at.checkpoint_id, at.checkpoint_ns);
 */
export interface ApiCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map: null;
}

/**
 * What a checkpoint says about itself: how it was made, its step, which node wrote which keys.
 *
 * @example
 * const state = (await (await fetch(`${url}/threads/${threadId}/state`)).json()) as ApiThreadState;
 * const meta: ApiCheckpointMetadata | null = state.metadata;
 * console.log(meta?.source, meta?.step);
 */
export interface ApiCheckpointMetadata {
  source?: string;
  step?: number;
  writes?: Record<string, unknown> | null;
  [key: string]: unknown;
}

/**
 * A thread's state at one checkpoint (`GET /threads/{id}/state`, history items).
 *
 * @example
 * const state = (await (await fetch(`${url}/threads/${threadId}/state`)).json()) as ApiThreadState;
 * console.log(state.values, state.next, state.tasks.flatMap((t) => t.interrupts));
 */
export interface ApiThreadState {
  values: Record<string, unknown>;
  next: string[];
  tasks: Array<{
    id: string;
    name: string;
    error: string | null;
    interrupts: ApiInterrupt[];
    checkpoint: null;
    state: ApiThreadState | null;
  }>;
  checkpoint: ApiCheckpoint;
  metadata: ApiCheckpointMetadata | null;
  created_at: string | null;
  parent_checkpoint: ApiCheckpoint | null;
  interrupts: ApiInterrupt[];
}

/**
 * A thread (`GET /threads/{id}`, search results), with its current values and pending interrupts.
 *
 * @example
 * const thread = (await (await fetch(`${url}/threads/${threadId}`)).json()) as ApiThread;
 * console.log(thread.status, thread.values, thread.metadata);
 */
export interface ApiThread {
  thread_id: string;
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: Record<string, unknown>;
  status: ApiThreadStatus;
  values: Record<string, unknown> | null;
  /** Pending interrupts by task id. */
  interrupts: Record<string, ApiInterrupt[]>;
  config: Record<string, never>;
  error: unknown;
}

/**
 * Why a run failed: its error code, message and details.
 *
 * @example
 * const run = (await (await fetch(`${url}/threads/${threadId}/runs/${runId}`)).json()) as ApiRun;
 * const failure: ApiRunError | null = run.error;
 * if (failure) console.error(failure.error, failure.message);
 */
export interface ApiRunError {
  error: string;
  message: string;
  details?: unknown;
}

/**
 * A run (`GET /threads/{id}/runs/{run_id}`, lists).
 *
 * @example
 * const runs = (await (await fetch(`${url}/threads/${threadId}/runs`)).json()) as ApiRun[];
 * const latest = runs[0];
 * console.log(latest?.run_id, latest?.status, latest?.multitask_strategy);
 */
export interface ApiRun {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: ApiRunStatus;
  metadata: Record<string, unknown>;
  multitask_strategy: ApiMultitaskStrategy;
  kwargs: {
    input: unknown;
    command: { resume?: unknown; update?: unknown; goto?: unknown } | null;
    config: { recursion_limit?: number; configurable?: Record<string, unknown>; tags?: string[] };
    stream_mode: string[];
    interrupt_before: string[] | "*" | null;
    interrupt_after: string[] | "*" | null;
    context: Record<string, unknown>;
  };
  attempt: number;
  error: ApiRunError | null;
}

/**
 * A version of an assistant (`POST /assistants/{id}/versions`).
 *
 * @example
 * const res = await fetch(`${url}/assistants/${assistantId}/versions`, {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ limit: 10 }),
 * });
 * const versions = (await res.json()) as ApiAssistantVersion[];
 */
export interface ApiAssistantVersion {
  assistant_id: string;
  graph_id: string;
  name: string;
  description: string | null;
  config: unknown;
  context: unknown;
  metadata: Record<string, unknown>;
  version: number;
  created_at: string;
}

/**
 * An assistant (`GET /assistants/{id}`, search results).
 *
 * @example
 * const assistant = (await (await fetch(`${url}/assistants/tutor`)).json()) as ApiAssistant;
 * console.log(assistant.graph_id, assistant.version, assistant.updated_at);
 */
export interface ApiAssistant extends ApiAssistantVersion {
  updated_at: string;
}

/**
 * A graph drawing (`GET /assistants/{id}/graph`): START and END as `schema` nodes.
 *
 * @example
 * const drawing = (await (await fetch(`${url}/assistants/tutor/graph`)).json()) as ApiGraphJson;
 * const nodes = drawing.nodes.filter((n) => n.type === "runnable").map((n) => n.id);
 */
export interface ApiGraphJson {
  nodes: Array<{ id: string; type: "schema" | "runnable"; data: unknown; metadata?: Record<string, unknown> }>;
  /** Conditional edges carry their path-map key as `data`. */
  edges: Array<{ source: string; target: string; conditional: boolean; data?: string }>;
}

/**
 * `GET /info`.
 *
 * @example
 * const info = (await (await fetch(`${url}/info`)).json()) as ApiServerInfo;
 * console.log(info.version, info.saver, info.queue, info.auth);
 */
export interface ApiServerInfo {
  version: string;
  name: string;
  flags: Record<string, boolean>;
  assistants: string[];
  queue: string;
  saver: string;
  auth: boolean;
}

/**
 * One task of a run as its `metadata.timeline` shows it: the node, the task id, the superstep, when the
 * server saw it start and end (ISO 8601), how long it took, and how it ended (`error` holds the error's
 * message; `interrupted` is true when the task paused). `ended_at`/`duration_ms` are null for a task
 * whose attempt stopped before it ended.
 *
 * @example
 * for (const t of (run.metadata.timeline as ApiRunTimeline).tasks) console.log(t.node, t.duration_ms);
 */
export interface ApiTimelineTask {
  node: string;
  task_id: string;
  step: number;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  error?: string;
  interrupted?: true;
  /** The model and tool calls the task made (its subgraph's too), by start; absent when it made none. */
  calls?: ApiTimelineCall[];
}

/**
 * A model call of a task in a run's timeline: the model (and provider), when it started (the call's
 * own clock, ISO 8601) and how long it took, its tokens and why it finished (`tool_calls` or `stop`).
 * `node` is the node that made it when that is not the task's own node (a subgraph's: `research/agent`).
 * Never the prompt or the reply.
 *
 * @example
 * const calls = (run.metadata.timeline as ApiRunTimeline).tasks.flatMap((t) => t.calls ?? []);
 * const tokens = calls.reduce((n, c) => n + (c.kind === "model" ? c.total_tokens : 0), 0);
 */
export interface ApiTimelineModelCall {
  kind: "model";
  model: string;
  provider?: string;
  node?: string;
  started_at: string;
  duration_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  finish_reason?: string;
}

/**
 * A tool call of a task in a run's timeline: the tool, when it started and how long it took, and how it
 * ended (`error`: the tool failed and the model was told; `interrupted`: it paused the run). Never its
 * arguments or result.
 *
 * @example
 * const failed = task.calls?.filter((c): c is ApiTimelineToolCall => c.kind === "tool" && c.status === "error");
 */
export interface ApiTimelineToolCall {
  kind: "tool";
  tool: string;
  node?: string;
  started_at: string;
  duration_ms: number | null;
  status: "ok" | "error" | "interrupted";
}

/**
 * A call in a run's timeline: a model call or a tool call.
 *
 * @example
 * const label = (c: ApiTimelineCall) => (c.kind === "model" ? c.model : c.tool);
 */
export type ApiTimelineCall = ApiTimelineModelCall | ApiTimelineToolCall;

/**
 * A run's timeline (`metadata.timeline`, stored when the run ends): its root graph's tasks in the order
 * they started, over every attempt of the run.
 *
 * @example
 * (run.metadata.timeline as ApiRunTimeline).tasks.length; // one per task the run ran
 */
export interface ApiRunTimeline {
  tasks: ApiTimelineTask[];
  /** Tasks left out past the server's limit (the first 1,000 are kept); absent when none were. */
  omitted?: number;
  /**
   * Calls left out: past the server's limit (the first 2,000 of a run are kept), of a task left out,
   * or made outside any task; absent when none were.
   */
  omitted_calls?: number;
}
