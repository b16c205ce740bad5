/**
 * `infra-agent` — the seed's CLI (`main.py`): an interactive pipeline session with node-by-node output
 * and `Approve?` questions at the gates, one-shot runs with flags, and the Mermaid drawing.
 */
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { CheckpointSaver } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import type { ChatModel } from "@trellis/models";
import { resolveDatabasePath, resolveDataDir } from "../app-config.js";
import { createPipelineGraph } from "../graph.js";
import { renderMermaid } from "../mermaid.js";
import { InfraPipeline, type PipelineEvent, type PipelineOutcome, type PipelineStatus } from "../pipeline.js";
import { type PipelineCommand, parseCli, USAGE, UsageError } from "./cli-args.js";
import { EventPrinter } from "./event-printer.js";
import { LineReader } from "./line-reader.js";

/**
 * The process around the CLI: streams, environment, working directory, and a signal for Ctrl-C.
 *
 * @example
 * await runCli(["graph"], { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
 */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  signal?: AbortSignal;
}

/**
 * Replacements for tests: a checkpointer, a model (`null` = offline), request ids.
 *
 * @example
 * await runCli(argv, io, { checkpointer: new MemorySaver(), newRequestId: () => "req-1" });
 */
export interface CliOverrides {
  checkpointer?: CheckpointSaver;
  model?: ChatModel | null;
  newRequestId?: () => string;
}

const EXIT: Record<PipelineOutcome, number> = {
  answered: 0,
  applied: 0,
  planned: 6,
  refused: 5,
  dry_run_complete: 0,
  failed: 1,
  incomplete: 1,
  awaiting_approval: 3,
  rejected: 4,
};

/**
 * Runs `infra-agent` with `argv` (without the node and script paths) and returns the exit code.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout,
 *   stderr: process.stderr, env: process.env, cwd: process.cwd() });
 */
export async function runCli(argv: readonly string[], io: CliIo, overrides: CliOverrides = {}): Promise<number> {
  let command: ReturnType<typeof parseCli>;
  try {
    command = parseCli(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`infra-agent: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (command.command === "help") {
    io.stdout.write(USAGE);
    return 0;
  }
  if (command.command === "graph") {
    io.stdout.write(renderMermaid(createPipelineGraph({ model: null, env: {}, cwd: io.cwd }).getGraph()));
    return 0;
  }
  let session: Session;
  try {
    session = openSession(command, io, overrides);
  } catch (error) {
    io.stderr.write(`infra-agent: ${(error as Error).message}\n`);
    return 2;
  }
  try {
    if (command.request !== undefined || command.thread !== undefined) return await runOnce(command, io, session);
    return await runInteractive(command, io, session);
  } catch (error) {
    io.stderr.write(`infra-agent: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await session.close();
  }
}

interface Session {
  pipeline: InfraPipeline;
  database: string;
  artifactsDir: string;
  close(): Promise<void>;
}

function openSession(command: PipelineCommand, io: CliIo, overrides: CliOverrides): Session {
  const dataDir = command.dataDir ? resolve(io.cwd, command.dataDir) : resolveDataDir(io.env, io.cwd);
  const database = command.db
    ? command.db === ":memory:"
      ? command.db
      : resolve(io.cwd, command.db)
    : resolveDatabasePath(io.env, dataDir);
  const artifactsDir = join(dataDir, "artifacts");
  let saver = overrides.checkpointer;
  let owned: SqliteSaver | undefined;
  if (!saver) {
    if (database !== ":memory:") mkdirSync(dirname(database), { recursive: true });
    owned = new SqliteSaver({ filename: database });
    saver = owned;
  }
  const graph = createPipelineGraph({
    artifactsDir,
    checkpointer: saver,
    env: io.env,
    cwd: io.cwd,
    ...(overrides.model !== undefined ? { model: overrides.model } : {}),
    ...(overrides.newRequestId ? { newRequestId: overrides.newRequestId } : {}),
  });
  const pipeline = new InfraPipeline(graph, overrides.newRequestId ? { newRequestId: overrides.newRequestId } : {});
  return { pipeline, database, artifactsDir, close: async () => owned?.close() };
}

/** The seed's `run_pipeline_session`: read a request, stream it, ask at the gates, repeat. */
async function runInteractive(command: PipelineCommand, io: CliIo, session: Session): Promise<number> {
  const out = io.stdout;
  const reader = new LineReader(io.stdin, out);
  const printer = new EventPrinter(out);
  out.write(
    `infra-agent pipeline — environment ${command.environment}${command.dryRun ? " (dry run)" : ""}\n` +
      `checkpoints: ${session.database}\nartifacts: ${session.artifactsDir}\n` +
      'Describe an infrastructure change, ask about past requests, or type "exit".\n',
  );
  try {
    for (;;) {
      const line = await reader.ask("You: ");
      if (line === undefined || /^(exit|quit)$/i.test(line.trim())) return 0;
      if (line.trim() === "") continue;
      const stream = session.pipeline.stream(line, {
        environment: command.environment,
        dryRun: command.dryRun,
        ...(io.signal ? { signal: io.signal } : {}),
      });
      const threadId = session.pipeline.lastRequestId as string;
      await drain(stream, printer);
      const status = await answerGates(threadId, command, io, session, printer, reader);
      out.write(`Result: ${status.outcome} (${threadId})\n`);
      if (status.outcome === "awaiting_approval") {
        out.write(
          `No answer given; ${threadId} waits at the ${status.gate} gate. Continue later with:\n  ${resumeHint(threadId, status)}\n`,
        );
        return EXIT.awaiting_approval;
      }
    }
  } finally {
    reader.close();
  }
}

/** One request (or one paused thread), answered by flags only. */
async function runOnce(command: PipelineCommand, io: CliIo, session: Session): Promise<number> {
  const json = command.json;
  const sink = json ? undefined : new EventPrinter(io.stdout);
  const nodes: string[] = [];
  const record = (e: PipelineEvent) => {
    if (e.type === "update") nodes.push(e.node);
    sink?.print(e);
  };
  let threadId: string;
  if (command.thread !== undefined) {
    threadId = command.thread;
    const status = await session.pipeline.status(threadId);
    if (status.values.request_id === "") {
      io.stderr.write(`infra-agent: no request "${threadId}" in ${session.database}.\n`);
      return 2;
    }
  } else {
    const stream = session.pipeline.stream(command.request as string, {
      environment: command.environment,
      dryRun: command.dryRun,
      ...(io.signal ? { signal: io.signal } : {}),
    });
    threadId = session.pipeline.lastRequestId as string;
    for await (const e of stream) record(e);
  }
  const status = await answerGates(threadId, command, io, session, { print: record }, undefined);
  if (json) {
    io.stdout.write(`${JSON.stringify(summary(status, nodes), null, 2)}\n`);
  } else {
    io.stdout.write(`Result: ${status.outcome} (${threadId})\n`);
    if (status.outcome === "awaiting_approval") {
      io.stdout.write(
        `${threadId} waits at the ${status.gate} gate. Continue with:\n  ${resumeHint(threadId, status)}\n`,
      );
    }
  }
  return EXIT[status.outcome];
}

/**
 * Answers gates while the request waits at one: from the flags, else by asking (when a reader is
 * given). Returns the request's status once it no longer waits, or when nobody answers.
 */
async function answerGates(
  threadId: string,
  command: PipelineCommand,
  io: CliIo,
  session: Session,
  printer: { print(e: PipelineEvent): void },
  reader: LineReader | undefined,
): Promise<PipelineStatus> {
  for (;;) {
    const status = await session.pipeline.status(threadId);
    if (status.outcome !== "awaiting_approval" || status.gate === undefined) return status;
    const flag = status.gate === "plan" ? command.approvePlan : command.approveDeploy;
    let approved: boolean | undefined = flag;
    if (flag !== undefined) {
      if (!command.json) {
        io.stdout.write(`Approve? ${flag ? "yes" : "no"} (--${flag ? "approve" : "reject"}-${status.gate})\n`);
      }
    } else if (reader) {
      approved = await confirm(reader);
    }
    if (approved === undefined) return status;
    await drain(session.pipeline.streamWithApproval(threadId, approved, io.signal), printer);
  }
}

/** The seed's `Confirm.ask("Approve?")`: y/yes or n/no; asks again otherwise; undefined at end of input. */
async function confirm(reader: LineReader): Promise<boolean | undefined> {
  for (;;) {
    const answer = await reader.ask("Approve? [y/n]: ");
    if (answer === undefined) return undefined;
    const a = answer.trim().toLowerCase();
    if (a === "y" || a === "yes") return true;
    if (a === "n" || a === "no") return false;
  }
}

async function drain(events: AsyncIterable<PipelineEvent>, printer: { print(e: PipelineEvent): void }): Promise<void> {
  for await (const e of events) printer.print(e);
}

function resumeHint(threadId: string, status: PipelineStatus): string {
  return `infra-agent pipeline --thread ${threadId} --approve-${status.gate} (or --reject-${status.gate})`;
}

function summary(status: PipelineStatus, nodes: string[]) {
  const v = status.values;
  const reply = [...v.messages].reverse().find((m) => m.role === "assistant");
  return {
    thread_id: status.threadId,
    request_id: v.request_id,
    outcome: status.outcome,
    environment: v.environment,
    dry_run: v.dry_run,
    intent: v.intent,
    nodes,
    pending_approval: status.gate ?? null,
    approval: status.approval ?? null,
    retry_count: v.retry_count,
    review_status: v.review_status,
    cost_estimate: v.cost_estimate,
    error: v.error,
    reply: reply?.content ?? null,
    planning_output: v.planning_output,
    iac_output: v.iac_output,
    review_output: v.review_output,
    deployment_output: v.deployment_output,
  };
}
