import type { StateSnapshot } from "@trellis/core";
import { checkFlags, type ParsedArgs, stringFlag } from "../args.js";
import { CliError, type CliIo } from "../io.js";
import { showValue } from "../progress-printer.js";
import { entryOf, loadGraph, loadProject, openThreadReader, scratchSaver } from "../project.js";

/**
 * `trellis draw <graph> [--json]`: the graph as a Mermaid flowchart (or its nodes and edges as JSON).
 *
 * @example
 * await drawCommand(parseArgs(["draw", "approval-flow"]), io); // prints "graph TD …"
 */
export async function drawCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  checkFlags(args, ["json"]);
  const project = await loadProject(io, stringFlag(args, "config"));
  const graphId = args.positionals[0];
  entryOf(project, graphId);
  const graph = await loadGraph(project, graphId as string, scratchSaver());
  if (args.flags.get("json") === true) io.stdout.write(`${JSON.stringify(graph.getGraph(), null, 2)}\n`);
  else io.stdout.write(graph.drawMermaid());
  return 0;
}

/**
 * `trellis threads [--graph id] [--limit n] [--json]`: the threads of the configured store, newest
 * first, with their status and graph.
 *
 * @example
 * await threadsCommand(parseArgs(["threads", "--json"]), io);
 */
export async function threadsCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  checkFlags(args, ["graph", "limit", "json"]);
  const project = await loadProject(io, stringFlag(args, "config"));
  const limit = Number(stringFlag(args, "limit") ?? 50);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError("--limit must be a positive whole number.", 2);
  const graphId = stringFlag(args, "graph");
  if (graphId !== undefined) entryOf(project, graphId);
  const reader = await openThreadReader(project);
  try {
    const threads = await reader.store.searchThreads({
      limit,
      offset: 0,
      sortBy: "updated_at",
      sortOrder: "desc",
      ...(graphId ? { metadata: { graph_id: graphId } } : {}),
    });
    if (args.flags.get("json") === true) {
      const rows = threads.map((t) => ({
        thread_id: t.threadId,
        graph_id: t.graphId,
        status: t.status,
        updated_at: t.updatedAt,
        created_at: t.createdAt,
        metadata: t.metadata,
      }));
      io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    if (threads.length === 0) {
      io.stdout.write("No threads yet. Start one with: trellis run <graph>\n");
      return 0;
    }
    const rows = threads.map((t) => [t.threadId, t.graphId ?? "-", t.status, t.updatedAt]);
    io.stdout.write(table(["THREAD", "GRAPH", "STATUS", "UPDATED"], rows));
    return 0;
  } finally {
    await reader.close();
  }
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}

/**
 * `trellis state <thread> [--history] [--graph id] [--json]`: a thread's current state (values, next
 * nodes, pending interrupts), or every checkpoint newest first with `--history`.
 *
 * @example
 * await stateCommand(parseArgs(["state", "cli-1a2b", "--history"]), io);
 */
export async function stateCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  checkFlags(args, ["history", "graph", "limit", "json"]);
  const threadId = args.positionals[0];
  if (!threadId) throw new CliError("Name a thread: trellis state <thread>. List them with trellis threads.", 2);
  const project = await loadProject(io, stringFlag(args, "config"));
  const reader = await openThreadReader(project);
  try {
    const record = await reader.store.getThread(threadId);
    const graphId = stringFlag(args, "graph") ?? record?.graphId ?? (record?.metadata.graph_id as string | undefined);
    if (!graphId) {
      throw new CliError(
        record
          ? `Thread "${threadId}" has no graph yet (it never ran); pass --graph <id>.`
          : `No thread "${threadId}" in ${describeSaver(project.resolved.saver)}. List them with trellis threads, or pass --graph <id> for a thread run by other code.`,
      );
    }
    entryOf(project, graphId);
    const graph = await loadGraph(project, graphId, reader.saver);
    const json = args.flags.get("json") === true;
    if (args.flags.get("history") === true) {
      const limit = Number(stringFlag(args, "limit") ?? 100);
      const history: StateSnapshot[] = [];
      for await (const s of graph.getStateHistory({ threadId }, { limit })) history.push(s);
      if (json) io.stdout.write(`${JSON.stringify(history, null, 2)}\n`);
      else
        io.stdout.write(history.map((s) => historyLine(s)).join("\n") + (history.length ? "\n" : "No checkpoints.\n"));
      return 0;
    }
    const state = await graph.getState({ threadId });
    if (state.checkpointId === undefined) throw new CliError(`Thread "${threadId}" has no checkpoint yet.`);
    if (json) {
      io.stdout.write(`${JSON.stringify(state, null, 2)}\n`);
      return 0;
    }
    const lines = [
      `thread ${threadId} · graph ${graphId} · ${record?.status ?? (state.next.length ? "interrupted" : "idle")}`,
      `checkpoint ${state.checkpointId} (step ${state.metadata?.step ?? "?"})`,
      `next: ${state.next.length ? state.next.join(", ") : "(done)"}`,
      ...state.interrupts.map((i) => `interrupt ${i.id} at ${i.node}: ${showValue(i.value, 500)}`),
      "values:",
      ...Object.entries(state.values).map(([k, v]) => `  ${k}: ${showValue(v, 500)}`),
    ];
    io.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  } finally {
    await reader.close();
  }
}

function historyLine(s: StateSnapshot): string {
  const meta = s.metadata as { source?: string; step?: number; writes?: Record<string, unknown> | null } | undefined;
  const writes = meta?.writes ? Object.keys(meta.writes).join(", ") : "";
  const next = s.next.length ? ` → next ${s.next.join(", ")}` : "";
  const paused = s.interrupts.length ? ` ⏸ ${s.interrupts.length} interrupt(s)` : "";
  return `${s.checkpointId}  step ${meta?.step ?? "?"}  ${meta?.source ?? "?"}${writes ? ` (${writes})` : ""}${next}${paused}`;
}

function describeSaver(saver: { kind: string; path?: string }): string {
  return saver.kind === "sqlite" ? `the SQLite file ${saver.path}` : "the Postgres saver";
}
