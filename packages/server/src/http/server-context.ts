import type { CheckpointSaver } from "@trellis/checkpoint";
import type { AssistantRegistry } from "../assistants/assistant-registry.js";
import type { HostedGraph } from "../assistants/graph-registry.js";
import type { ResolvedConfig } from "../config/config.js";
import type { RunManager } from "../runs/run-manager.js";
import type { RunService } from "../runs/run-service.js";
import type { RunStore, ThreadRecord } from "../stores/run-store.js";
import type { UserLimits } from "../stores/user-limits.js";
import { notFound } from "./http-errors.js";

/**
 * Who may reach a thread in {@link ServerContext.threadFor}: its owner only (`"owner"`, the default), or
 * also an operator (`"operator"`: the routes that list, read, cancel and delete — never those that run,
 * resume, change or copy a thread).
 *
 * @example
 * const thread = await ctx.threadFor(c.var.user, threadId, "operator"); // GET and DELETE /threads/{id}
 */
export type ThreadAccess = "owner" | "operator";

/**
 * Hono environment of the server's routes: the authenticated user (null when auth is off).
 *
 * @example
 * const app = new Hono<ServerEnv>();
 * app.get("/me", (c) => c.json({ user: c.var.user }));
 */
export interface ServerEnv {
  Variables: { user: string | null };
}

/**
 * Everything the routes share.
 *
 * @example
 * const thread = await ctx.threadFor(c.var.user, threadId); // 404 unless it exists and is the user's
 */
export interface ServerContext {
  config: ResolvedConfig;
  graphs: ReadonlyMap<string, HostedGraph>;
  /** Assistants as data: the system ones of `trellis.json` and those users made; who may see which. */
  assistants: AssistantRegistry;
  saver: CheckpointSaver;
  store: RunStore;
  manager: RunManager;
  /** The one run path: every door starts, follows and cancels runs through it. */
  runs: RunService;
  authEnabled: boolean;
  /** The per-user limits on queued runs, threads and crons (429s naming the limit). */
  limits: UserLimits;
  /** Whether `user` is an operator (a credential with `role: "operator"`, auth on). */
  isOperator(user: string | null): boolean;
  /**
   * The thread, if it exists and `user` may see it (its owner; an operator too with `access`
   * `"operator"`); otherwise a 404.
   */
  threadFor(user: string | null, threadId: string, access?: ThreadAccess): Promise<ThreadRecord>;
  /** The hosted graph of a graph id (= the id of its system assistant), or a 404. */
  graphFor(assistantId: string): HostedGraph;
}

/** Builds the shared lookups of a {@link ServerContext}. @internal */
export function lookups(
  parts: Omit<ServerContext, "threadFor" | "graphFor" | "runs" | "isOperator" | "limits">,
): Pick<ServerContext, "threadFor" | "graphFor" | "isOperator"> {
  const operators = new Set(parts.authEnabled ? parts.config.auth.operators : []);
  const isOperator = (user: string | null) => user !== null && operators.has(user);
  return {
    isOperator,
    async threadFor(user, threadId, access = "owner") {
      const thread = await parts.store.getThread(threadId);
      const allowed = !parts.authEnabled || thread?.owner === user || (access === "operator" && isOperator(user));
      if (!thread || !allowed) throw notFound("Thread", threadId);
      return thread;
    },
    graphFor(assistantId) {
      const hosted = parts.graphs.get(assistantId);
      if (!hosted) throw notFound("Assistant", assistantId);
      return hosted;
    },
  };
}
