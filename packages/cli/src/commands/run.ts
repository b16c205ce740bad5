import { randomUUID } from "node:crypto";
import { Command, type GraphInput, type Interrupt, type StateSnapshot } from "@trellis/core";
import type { AnyGraph, RunStore } from "@trellis/server";
import { checkFlags, type ParsedArgs, stringFlag } from "../args.js";
import { CliError, type CliIo, LineReader } from "../io.js";
import {
  answerHint,
  answerKindOf,
  breakpointAnswer,
  breakpointKindOf,
  breakpointQuestion,
  parseAnswer,
} from "../pause-prompts.js";
import { ProgressPrinter, payloadLines, showValue } from "../progress-printer.js";
import { entryOf, loadGraph, loadProject, openStorage } from "../project.js";

/** Exit code of a run left paused because stdin ended (or the person stopped) before an answer. */
export const EXIT_PAUSED = 3;

/**
 * `trellis run <graph> [--input json] [--thread id] [--json]`: runs a graph of `trellis.json` in this
 * process on the configured saver, shows progress, asks the person at every pause and resumes, until
 * the run ends. Exit codes: 0 done, 1 failed, 2 usage, 3 left paused.
 *
 * @example
 * await runCommand(parseArgs(["run", "approval-flow", "--input", '{"request":"x"}']), io);
 */
export async function runCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  checkFlags(args, ["input", "thread", "json"]);
  const project = await loadProject(io, stringFlag(args, "config"));
  const graphId = args.positionals[0];
  entryOf(project, graphId);
  const input = parseInput(stringFlag(args, "input"));
  const storage = await openStorage(project);
  const lines = new LineReader(io.stdin);
  try {
    const graph = await loadGraph(project, graphId as string, storage.saver);
    const threadId = stringFlag(args, "thread") ?? `cli-${randomUUID().slice(0, 8)}`;
    await registerThread(storage.store, threadId, graphId as string);
    const json = args.flags.get("json") === true;
    const session = new RunSession({
      graph,
      graphId: graphId as string,
      threadId,
      store: storage.store,
      io,
      lines,
      json,
    });
    return await session.drive(input);
  } finally {
    lines.close();
    await storage.close();
  }
}

function parseInput(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `--input is not valid JSON: ${(error as Error).message}. Example: --input '{"request":"hi"}'`,
      2,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CliError('--input must be a JSON object of state keys, like \'{"request":"hi"}\'.', 2);
  }
  return value as Record<string, unknown>;
}

async function registerThread(store: RunStore, threadId: string, graphId: string): Promise<void> {
  const existing = await store.getThread(threadId);
  if (existing?.graphId && existing.graphId !== graphId) {
    throw new CliError(`Thread "${threadId}" belongs to graph "${existing.graphId}", not "${graphId}".`);
  }
  if (existing) {
    if (!existing.graphId) await store.updateThread(threadId, { graphId });
    return;
  }
  const now = new Date().toISOString();
  await store.createThread(
    {
      threadId,
      createdAt: now,
      updatedAt: now,
      metadata: { graph_id: graphId, source: "cli" },
      status: "idle",
      owner: null,
      graphId,
      error: null,
    },
    "do_nothing",
  );
}

interface SessionOptions {
  graph: AnyGraph;
  graphId: string;
  threadId: string;
  store: RunStore;
  io: CliIo;
  lines: LineReader;
  json: boolean;
}

type Next = { input: GraphInput<never> } | { stop: "eof" | "stop" };

/** One terminal session on a thread: run, ask at each pause, resume. @internal */
class RunSession {
  readonly #o: SessionOptions;
  readonly #printer: ProgressPrinter;

  constructor(options: SessionOptions) {
    this.#o = options;
    this.#printer = new ProgressPrinter(options.io.stdout, !options.json && options.io.stdout.isTTY === true);
  }

  #config() {
    return { threadId: this.#o.threadId };
  }

  #emit(event: Record<string, unknown>): void {
    this.#o.io.stdout.write(`${JSON.stringify(event)}\n`);
  }

  #say(text: string): void {
    if (!this.#o.json) this.#printer.line(text);
  }

  async drive(input: Record<string, unknown> | undefined): Promise<number> {
    const { graph, threadId, graphId } = this.#o;
    if (this.#o.json) this.#emit({ event: "run", graph: graphId, thread: threadId });
    else this.#say(`trellis run ${graphId} · thread ${threadId}`);
    let next: GraphInput<never> | undefined = input as GraphInput<never> | undefined;
    if (next === undefined && (await graph.getState(this.#config())).next.length === 0) next = {} as never;
    for (;;) {
      if (next !== undefined && !(await this.#stream(next))) return 1;
      const state = await graph.getState(this.#config());
      if (state.next.length === 0) return this.#done(state);
      await this.#o.store.updateThread(threadId, { status: "interrupted" });
      const answer = state.interrupts.length > 0 ? await this.#askInterrupts(state) : await this.#askBreakpoint(state);
      if ("stop" in answer) return this.#paused(state, answer.stop);
      next = answer.input;
    }
  }

  async #stream(input: GraphInput<never>): Promise<boolean> {
    const { graph, store, threadId } = this.#o;
    await store.updateThread(threadId, { status: "busy" });
    try {
      const events = graph.streamEvents(input, {
        ...this.#config(),
        streamMode: ["debug", "messages", "updates"],
        metadata: { source_cli: true },
      });
      for await (const e of events) {
        if (e.namespace.length > 0) continue;
        if (e.mode === "debug" && e.data.type === "task") {
          if (this.#o.json) this.#emit({ event: "node", node: e.data.node, status: "started" });
          else this.#printer.nodeStarted(e.data.node);
        } else if (e.mode === "debug" && e.data.type === "task_result") {
          if (this.#o.json)
            this.#emit({ event: "node", node: e.data.node, status: e.data.status, error: e.data.error });
          else this.#printer.nodeFinished(e.data.node, e.data.status, e.data.error);
        } else if (e.mode === "messages") {
          const [chunk, meta] = e.data;
          const c = chunk as { type?: string; text?: string };
          if (c?.type !== "text" || !c.text) continue;
          if (this.#o.json) this.#emit({ event: "token", node: meta.node, text: c.text });
          else this.#printer.token(c.text);
        } else if (e.mode === "updates" && this.#o.json) {
          this.#emit({ event: "update", update: e.data });
        }
      }
      this.#printer.stop();
      return true;
    } catch (error) {
      this.#printer.stop();
      const message = describeError(error);
      await store.updateThread(threadId, { status: "error", error: { message } });
      if (this.#o.json) this.#emit({ event: "error", thread: threadId, message });
      else this.#o.io.stderr.write(`✗ The run failed: ${message}\n  Thread ${threadId} keeps its last checkpoint.\n`);
      return false;
    }
  }

  async #done(state: StateSnapshot): Promise<number> {
    await this.#o.store.updateThread(this.#o.threadId, { status: "idle", error: null });
    if (this.#o.json) {
      this.#emit({ event: "done", thread: this.#o.threadId, values: state.values });
      return 0;
    }
    this.#say(`✔ Done · thread ${this.#o.threadId}`);
    for (const [key, value] of Object.entries(state.values)) this.#say(`  ${key}: ${showValue(value, 300)}`);
    return 0;
  }

  #paused(state: StateSnapshot, why: "eof" | "stop"): number {
    const { graphId, threadId } = this.#o;
    if (this.#o.json) {
      this.#emit({ event: "paused", thread: threadId, next: state.next, interrupts: state.interrupts });
      return EXIT_PAUSED;
    }
    const reason = why === "eof" ? "No answer (input ended)" : "Stopped";
    this.#say(`${reason}: thread ${threadId} stays paused before ${state.next.join(", ")}.`);
    this.#say(`Resume it with: trellis run ${graphId} --thread ${threadId}`);
    return EXIT_PAUSED;
  }

  async #ask(question: string): Promise<string | undefined> {
    if (!this.#o.json) this.#o.io.stdout.write(`? ${question} › `);
    const line = await this.#o.lines.next();
    if (!this.#o.json && line !== undefined && this.#o.io.stdout.isTTY !== true) this.#o.io.stdout.write(`${line}\n`);
    if (!this.#o.json && line === undefined) this.#o.io.stdout.write("\n");
    return line;
  }

  async #askInterrupts(state: StateSnapshot): Promise<Next> {
    const answers: Record<string, unknown> = {};
    for (const pending of state.interrupts as Interrupt[]) {
      const kind = answerKindOf(pending.value);
      if (this.#o.json) {
        this.#emit({ event: "interrupt", thread: this.#o.threadId, interrupt: pending, answer: kind.kind });
      } else {
        this.#say(`⏸ ${pending.node} is waiting for an answer:`);
        for (const line of payloadLines(pending.value)) this.#say(line);
      }
      if (kind.kind === "questions") {
        const replies: string[] = [];
        for (const [i, q] of kind.questions.entries()) {
          const hint = q.options.length ? ` (${q.options.join("/")})` : "";
          const reply = await this.#ask(`${i + 1}. ${q.question}${hint}`);
          if (reply === undefined) return { stop: "eof" };
          replies.push(reply.trim());
        }
        answers[pending.id] = replies.join(", ");
        continue;
      }
      const line = await this.#ask(`${kind.question.split("\n")[0]} (${answerHint(kind)})`);
      if (line === undefined) return { stop: "eof" };
      answers[pending.id] = parseAnswer(kind, line);
    }
    const ids = Object.keys(answers);
    const resume = ids.length === 1 ? answers[ids[0] as string] : answers;
    return { input: new Command({ resume }) as GraphInput<never> };
  }

  async #askBreakpoint(state: StateSnapshot): Promise<Next> {
    const kind = breakpointKindOf(state.next, state.values);
    if (this.#o.json) {
      this.#emit({ event: "breakpoint", thread: this.#o.threadId, next: state.next, answer: kind.kind });
    } else {
      this.#say(`⏸ Paused before ${state.next.join(", ")}.`);
      const draft = state.values.draft;
      if (kind.kind !== "state-update" && typeof draft === "string") this.#say(`  draft: ${showValue(draft, 4000)}`);
    }
    for (;;) {
      const line = await this.#ask(breakpointQuestion(kind));
      if (line === undefined) return { stop: "eof" };
      let answer = breakpointAnswer(kind, line, () => new Date());
      if (answer && "askFeedback" in answer) {
        const feedback = await this.#ask("What should change?");
        if (feedback === undefined) return { stop: "eof" };
        answer = breakpointAnswer(kind, `r ${feedback}`, () => new Date());
      }
      if (!answer || "askFeedback" in answer) {
        this.#say("  (not an answer here; try again)");
        continue;
      }
      if ("stop" in answer) return { stop: "stop" };
      if (Object.keys(answer.update).length > 0) await this.#o.graph.updateState(this.#config(), answer.update);
      return { input: null };
    }
  }
}

/**
 * An error in plain words: the error's code when it has one, and its message.
 *
 * @example
 * describeError(new Error("boom")); // "boom"
 */
export function describeError(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; name?: unknown };
  const message = typeof e?.message === "string" ? e.message : String(error);
  return typeof e?.code === "string" && !message.includes(e.code) ? `${message} (${e.code})` : message;
}
