import { randomUUID } from "node:crypto";
import { TrellisError } from "@trellis/checkpoint";
import type { HostedGraph } from "../assistants/graph-registry.js";
import { field, invalid } from "../http/request-body.js";
import type { MultitaskStrategy, RunKwargs } from "../stores/run-store.js";
import { API_STREAM_MODES } from "../streams/stream-format.js";
import { refuseReservedKeys } from "./run-identity.js";

/** A checked run-create request. */
export interface RunRequest {
  runId: string;
  assistantId: string;
  kwargs: RunKwargs;
  metadata: Record<string, unknown>;
  multitaskStrategy: MultitaskStrategy;
  ifNotExists: "create" | "reject";
  onDisconnect: "cancel" | "continue";
  onCompletion: "delete" | "keep";
}

const STRATEGIES = ["reject", "interrupt", "rollback", "enqueue"] as const;

function breakpoints(body: Record<string, unknown>, key: string, nodes: ReadonlySet<string>): string[] | "*" | null {
  if (body[key] === "*") return "*";
  const list = field.stringList(body, key);
  if (!list) return null;
  const unknown = list.filter((n) => !nodes.has(n));
  if (unknown.length) throw invalid(`"${key}" names nodes the graph does not have: ${unknown.join(", ")}.`);
  return list;
}

function command(body: Record<string, unknown>, hosted: HostedGraph): RunKwargs["command"] {
  const cmd = field.object(body, "command");
  if (!cmd) return null;
  const out: NonNullable<RunKwargs["command"]> = {};
  if ("resume" in cmd && cmd.resume !== undefined) out.resume = cmd.resume;
  if (cmd.update !== undefined && cmd.update !== null) {
    const u = cmd.update;
    const isPairs = Array.isArray(u) && u.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === "string");
    if (!isPairs && (typeof u !== "object" || Array.isArray(u))) throw invalid('"command.update" must be an object.');
    const keys = isPairs ? (u as [string, unknown][]).map((p) => p[0]) : Object.keys(u as object);
    checkKeys(keys, hosted, "command.update");
    out.update = u;
  }
  if (cmd.goto !== undefined && cmd.goto !== null) {
    const nodes = new Set(hosted.graph.getGraph().nodes.map((n) => n.id));
    const list = Array.isArray(cmd.goto) ? cmd.goto : [cmd.goto];
    for (const g of list) {
      const name = typeof g === "string" ? g : (g as { node?: unknown })?.node;
      if (typeof name !== "string" || !nodes.has(name))
        throw invalid(`"command.goto" names no node of the graph: ${JSON.stringify(g)}.`);
    }
    out.goto = cmd.goto;
  }
  if (out.resume === undefined && out.update === undefined && out.goto === undefined) {
    throw invalid('"command" must carry "resume", "update" or "goto".');
  }
  if (out.resume !== undefined && out.goto !== undefined) {
    throw invalid('A command carries "resume" (with an "update"), or "goto", not both: route first, then resume.');
  }
  return out;
}

function checkKeys(keys: string[], hosted: HostedGraph, where: string): void {
  const unknown = keys.filter((k) => !hosted.graph.schemaKeys.includes(k));
  if (unknown.length) {
    throw new TrellisError(
      "UNKNOWN_STATE_KEY",
      `${where} has keys that are not in the state of graph "${hosted.assistantId}": ${unknown.join(", ")}. Known keys: ${hosted.graph.schemaKeys.join(", ")}.`,
    );
  }
}

/**
 * Checks a run-create body (`POST /threads/{id}/runs[/stream|/wait]`) against the graph it names,
 * before anything is stored: unknown assistants, state keys, nodes, stream modes or strategies are a 4xx,
 * and so is a `configurable` or `context` key that carries the run's user (`refuseReservedKeys`).
 *
 * @example
 * const request = parseRunRequest(body, (id) => ctx.graphFor(id), { streamDefault: ["values"] });
 */
export function parseRunRequest(
  body: Record<string, unknown>,
  graphFor: (assistantId: string) => HostedGraph,
  options: {
    streamDefault: string[];
    onDisconnectDefault: "cancel" | "continue";
    /** With auth on, `user_id` is reserved too (see `reservedKeys`). Default false. */
    authEnabled?: boolean;
  },
): { request: RunRequest; hosted: HostedGraph } {
  const assistantId = field.string(body, "assistant_id");
  if (!assistantId) {
    throw invalid(
      '"assistant_id" is required: a graph id of trellis.json, or an assistant made with POST /assistants.',
    );
  }
  const hosted = graphFor(assistantId);
  let input = body.input ?? null;
  if (input !== null && (typeof input !== "object" || Array.isArray(input)))
    throw invalid('"input" must be an object or null.');
  if (input !== null) checkKeys(Object.keys(input), hosted, "input");
  const cmd = command(body, hosted);
  // `useStream().submit({}, { command })` sends an empty input with every command: it means no input
  if (input !== null && cmd && Object.keys(input).length > 0) {
    throw invalid('Pass "input" or "command", not both: a command resumes or routes the thread as it stands.');
  }
  if (cmd) input = null;
  // an empty list (a client that has not read any mode yet) falls back to values, as LangGraph does
  const listed = field.stringList(body, "stream_mode");
  const streamMode = listed === undefined ? options.streamDefault : listed.length > 0 ? listed : ["values"];
  const badModes = streamMode.filter((m) => !API_STREAM_MODES.has(m));
  if (badModes.length)
    throw invalid(`Unknown stream_mode ${badModes.join(", ")}. Known: ${[...API_STREAM_MODES].join(", ")}.`);
  const config = field.object(body, "config") ?? {};
  const recursionLimit = field.int(config, "recursion_limit", { min: 1, max: 10_000 });
  const configurable = field.object(config, "configurable");
  const context = field.object(body, "context");
  // the run's user is the server's to write (ctx.user, configurable.langgraph_auth_user_id)
  refuseReservedKeys(configurable, "config.configurable", options.authEnabled ?? false);
  refuseReservedKeys(context, "context", options.authEnabled ?? false);
  const nodes = new Set(hosted.graph.getGraph().nodes.map((n) => n.id));
  const checkpointId =
    field.string(body, "checkpoint_id") ??
    (field.object(body, "checkpoint")?.checkpoint_id as string | undefined) ??
    (typeof configurable?.checkpoint_id === "string" ? configurable.checkpoint_id : undefined);
  const kwargs: RunKwargs = {
    input,
    command: cmd,
    config: {
      ...(recursionLimit !== undefined ? { recursion_limit: recursionLimit } : {}),
      ...(configurable ? { configurable } : {}),
    },
    streamMode,
    streamSubgraphs: field.boolean(body, "stream_subgraphs") ?? false,
    interruptBefore: breakpoints(body, "interrupt_before", nodes),
    interruptAfter: breakpoints(body, "interrupt_after", nodes),
    checkpointId: checkpointId ?? null,
    durability: field.oneOf(body, "durability", ["sync", "async", "exit"] as const) ?? null,
    ...(context ? { context } : {}),
  };
  const request: RunRequest = {
    runId: randomUUID(),
    assistantId,
    kwargs,
    metadata: field.object(body, "metadata") ?? {},
    multitaskStrategy: field.oneOf(body, "multitask_strategy", STRATEGIES) ?? "reject",
    ifNotExists: field.oneOf(body, "if_not_exists", ["create", "reject"] as const) ?? "reject",
    onDisconnect: field.oneOf(body, "on_disconnect", ["cancel", "continue"] as const) ?? options.onDisconnectDefault,
    onCompletion: field.oneOf(body, "on_completion", ["delete", "keep"] as const) ?? "delete",
  };
  return { request, hosted };
}
