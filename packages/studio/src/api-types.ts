/**
 * The server's wire shapes the studio reads (the Agent Server's JSON, snake_case), declared here so
 * the browser code needs no server package.
 */

/** `GET /assistants/{id}` and search results. */
export interface Assistant {
  assistant_id: string;
  graph_id: string;
  name: string;
  description: string | null;
}

/** `GET /assistants/{id}/graph`. */
export interface GraphJson {
  nodes: Array<{ id: string; type: "schema" | "runnable"; data: unknown }>;
  edges: Array<{ source: string; target: string; conditional: boolean; data?: string }>;
}

/** A pending interrupt. */
export interface ApiInterrupt {
  id: string;
  value: unknown;
  ns?: string[];
}

/** A thread as search and get return it. */
export interface Thread {
  thread_id: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
  status: "idle" | "busy" | "interrupted" | "error";
  values: Record<string, unknown> | null;
  interrupts: Record<string, ApiInterrupt[]>;
  error: unknown;
}

/** A checkpoint's address. */
export interface ApiCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
}

/** A thread's state at one checkpoint (`/state`, history items). */
export interface ThreadState {
  values: Record<string, unknown>;
  next: string[];
  tasks: Array<{ id: string; name: string; error: string | null; interrupts: ApiInterrupt[] }>;
  checkpoint: ApiCheckpoint;
  metadata: { source?: string; step?: number; writes?: Record<string, unknown> | null; [k: string]: unknown } | null;
  created_at: string | null;
  parent_checkpoint: ApiCheckpoint | null;
  interrupts: ApiInterrupt[];
}

/** A run record. */
export interface Run {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  status: string;
  created_at: string;
}

/** `GET /info`. */
export interface ServerInfo {
  version: string;
  assistants: string[];
  queue: string;
  saver: string;
  auth: boolean;
}

/** One server-sent event. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: unknown;
}
