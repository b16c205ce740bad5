import { randomUUID } from "node:crypto";
import type { Interrupt, StateSnapshot } from "@trellis/core";
import { formAnswer, joinAnswers, parseTypedAnswer, pauseHint, readPause } from "@trellis/protocol";
import type { RunEnd, RunRecord, RunService, StartRun, StoredEvent } from "@trellis/server";
import { checkFlags, type ParsedArgs, stringFlag } from "../args.js";
import { describeField, inputFromFields } from "../input-fields.js";
import { CliError, type CliIo, LineReader } from "../io.js";
import { breakpointAnswer, breakpointQuestion } from "../pause-prompts.js";
import { ProgressPrinter, payloadLines, showValue } from "../progress-printer.js";
import { entryOf, loadGraph, loadProject, openServer, scratchSaver } from "../project.js";
import { requiredInputKeys } from "../required-inputs.js";
import { addUsage, type SessionUsage, usageLine } from "../usage-line.js";

/**
 * Exit code of a run left paused because stdin ended (or the person stopped) before an answer.
 *
 * @example
 * const code = spawnSync("trellis", ["run", "tutor"], { input: "" }).status;
 * if (code === EXIT_PAUSED) console.log("the thread waits for an answer; run it again to answer");
 */
export const EXIT_PAUSED = 3;

/** The modes a terminal run stores in its event log (what the studio and `GET …/stream` replay). */
const STORED_MODES = ["values", "updates", "messages-tuple", "debug"];

/**
 * `trellis run <graph> [key=value …] [--input json] [--thread id] [--json]`: runs a graph of `trellis.json` through
 * the run service of the project's server, built in this process (same saver, thread table and queue as
 * `trellis serve`): each turn is a real run of the thread, with its record, multitask check, graph
 * binding, paused-input policy and event log. Shows progress from the run's events, asks the person at
 * every pause and answers with `command.resume`, until the thread ends. Ctrl+C cancels the run in
 * flight (its progress kept) and leaves the thread paused. Exit codes: 0 done, 1 failed or refused,
 * 2 usage, 3 left paused.
 *
 * @example
 * await runCommand(parseArgs(["run", "approval-flow", "--input", '{"request":"x"}']), io);
 */
export async function runCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  checkFlags(args, ["input", "thread", "json"]);
  const project = await loadProject(io, stringFlag(args, "config"));
  const graphId = args.positionals[0];
  entryOf(project, graphId);
  const json = args.flags.get("json") === true;
  const given = parseInput(stringFlag(args, "input"));
  const threadId = stringFlag(args, "thread") ?? `cli-${randomUUID().slice(0, 8)}`;
  // the first line comes before the graphs load (seconds for a project of several apps)
  if (json) io.stdout.write(`${JSON.stringify({ event: "run", graph: graphId, thread: threadId })}\n`);
  else {
    const count = Object.keys(project.config.graphs).length;
    io.stdout.write(`trellis run ${graphId} · thread ${threadId}\n`);
    io.stdout.write(`  loading ${count === 1 ? "the graph" : `the project's ${count} graphs`}…\n`);
  }
  const input = await withFields(given, args.positionals.slice(1), () =>
    loadGraph(project, graphId as string, scratchSaver()),
  );
  const server = await openServer(project, io);
  const lines = new LineReader(io.stdin);
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.once("SIGINT", onSigint);
  const session = new RunSession({
    runs: server.runs,
    graphId: graphId as string,
    threadId,
    io,
    lines,
    json,
    stop: stop.signal,
  });
  try {
    return await session.drive(input);
  } finally {
    process.off("SIGINT", onSigint);
    lines.close();
    await session.cancelInFlight();
    await server.close(); // its worker stops; no run of this session is left running
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

/** A value a declared schema refused (a resume answer, a state update): nothing of it was written. */
function isRefusedValue(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === "INVALID_RESUME" || code === "INVALID_STATE";
}

/**
 * Adds the `key=value` arguments to the input, each read as its key's type in the graph's input
 * schema (the graph is loaded only when there are some).
 */
async function withFields(
  input: Record<string, unknown> | undefined,
  fields: readonly string[],
  graph: () => Promise<{ getSchemas(): { input: Record<string, unknown> } }>,
): Promise<Record<string, unknown> | undefined> {
  if (fields.length === 0) return input;
  return { ...input, ...inputFromFields(fields, (await graph()).getSchemas().input) };
}

/**
 * A run the service refused before storing anything, in the terminal's words: the service's message
 * (the API's 409/400 text) and the command that would work. Other errors pass through.
 */
function refusal(error: unknown, graphId: string, threadId: string): unknown {
  const code = (error as { code?: unknown })?.code;
  const details = (error as { details?: { graphId?: unknown } })?.details;
  const again = `trellis run ${graphId} --thread ${threadId}`;
  let hint: string | undefined;
  if (code === "CONFLICT" && typeof details?.graphId === "string") {
    hint = `Continue it with: trellis run ${details.graphId} --thread ${threadId}, or leave out --thread for a new thread.`;
  } else if (code === "CONFLICT") {
    hint = `Another run (from the server, the studio or another terminal) is using thread ${threadId}: wait for it to end, then run this again.`;
  } else if (code === "THREAD_PAUSED") {
    hint = `Answer it with: ${again} (without --input).`;
  } else if (code === "RESUME_MISMATCH" || code === "NOTHING_TO_RESUME" || code === "AMBIGUOUS_RESUME") {
    hint = `See what it asks now with: ${again}`;
  } else if (code === "INVALID_STATE" || code === "INVALID_RESUME") {
    hint =
      "Nothing was written. Set typed keys as key=value arguments (read as their type): trellis run <graph> key=value …";
  }
  return hint ? new CliError(`${describeError(error)}\n  ${hint}`) : error;
}

interface SessionOptions {
  runs: RunService;
  graphId: string;
  threadId: string;
  io: CliIo;
  lines: LineReader;
  json: boolean;
  /** Aborted by Ctrl+C: the run in flight is cancelled, no more questions are asked. */
  stop: AbortSignal;
}

/** One turn of the conversation: what a run is started with. */
type Turn = Pick<StartRun, "input" | "command" | "kwargs">;

type Next = { turn: Turn } | { stop: "eof" | "stop" };

/** One terminal session on a thread: a run per turn through the run service, a question at each pause. @internal */
class RunSession {
  readonly #o: SessionOptions;
  readonly #printer: ProgressPrinter;
  #inFlight: RunRecord | undefined;
  /** Tokens of the session's runs so far (undefined until a model was called). */
  #usage: SessionUsage | undefined;

  constructor(options: SessionOptions) {
    this.#o = options;
    this.#printer = new ProgressPrinter(options.io.stdout, !options.json && options.io.stdout.isTTY === true);
  }

  #emit(event: Record<string, unknown>): void {
    this.#o.io.stdout.write(`${JSON.stringify(event)}\n`);
  }

  #say(text: string): void {
    if (!this.#o.json) this.#printer.line(text);
  }

  /** The thread as the graph of this session reads it. */
  #state(): Promise<StateSnapshot> {
    return this.#o.runs.graph(this.#o.graphId).graph.getState({ threadId: this.#o.threadId });
  }

  async drive(input: Record<string, unknown> | undefined): Promise<number> {
    const { runs, threadId, graphId } = this.#o;
    const thread = await runs.thread(threadId, "app").catch((error: unknown) => {
      if ((error as { code?: unknown }).code === "NOT_FOUND") return undefined;
      throw error;
    });
    // a thread of another graph is not read here: its first run is refused by the service (409)
    const ours = !thread?.graphId || thread.graphId === graphId;
    let state = ours ? await this.#state() : undefined;
    let turn: Turn | undefined;
    if (input !== undefined || !state?.next.length) {
      // no input given for a new turn: ask for the graph's required keys instead of running with them empty
      const asked = input === undefined && ours ? await this.#askInputs() : { input: input ?? {} };
      if ("stop" in asked) return asked.stop;
      turn = { input: asked.input };
    }
    for (;;) {
      if (turn) {
        const end = await this.#run(turn).catch((error: unknown) => {
          // an answer the graph's schema refuses (nothing was written): say why, ask again
          if (turn?.command === undefined || !isRefusedValue(error)) throw error;
          this.#refused(error as Error);
          return undefined;
        });
        if (!end) {
          turn = undefined;
          continue;
        }
        // `success` also ends a run that reached a pause (as LangGraph reports it): the thread says which
        if (end.error || (end.status !== "success" && end.status !== "interrupted")) return this.#failed(end);
        if (end.status === "success" && !end.paused) return this.#done(end.values);
        state = await this.#state();
        if (state.next.length === 0) return this.#done(state.values);
      }
      const paused = state as StateSnapshot;
      if (this.#o.stop.aborted) return this.#paused(paused, "stop");
      const answer =
        paused.interrupts.length > 0 ? await this.#askInterrupts(paused) : await this.#askBreakpoint(paused);
      if ("stop" in answer) return this.#paused(paused, answer.stop);
      turn = answer.turn;
    }
  }

  /** Starts a run of the thread, prints its events as they come, and waits for its end. */
  async #run(turn: Turn): Promise<RunEnd> {
    const { runs, graphId, threadId, stop } = this.#o;
    let run: RunRecord;
    try {
      run = await runs.start({
        assistantId: graphId,
        threadId,
        as: "app",
        ...turn,
        metadata: { source: "cli" },
        kwargs: { streamMode: STORED_MODES, ...turn.kwargs },
      });
    } catch (error) {
      throw turn.command !== undefined && isRefusedValue(error) ? error : refusal(error, graphId, threadId);
    }
    this.#inFlight = run;
    const cancel = () => void runs.cancel(run, "interrupt").catch(() => undefined);
    stop.addEventListener("abort", cancel, { once: true });
    if (stop.aborted) cancel();
    try {
      const modes = this.#o.json ? ["debug", "messages-tuple", "updates"] : ["debug", "messages-tuple"];
      for await (const e of runs.follow(run.runId, 0, { modes })) this.#show(e);
      const end = await runs.wait(run.runId);
      this.#usage = addUsage(this.#usage, end.run.metadata.usage);
      return end;
    } finally {
      stop.removeEventListener("abort", cancel);
      this.#printer.stop();
      this.#inFlight = undefined;
    }
  }

  /** Cancels a run left in flight by an error, and waits until it stopped (its progress kept). */
  async cancelInFlight(): Promise<void> {
    const run = this.#inFlight;
    if (run) await this.#o.runs.cancel(run, "interrupt", true).catch(() => undefined);
  }

  #show(e: StoredEvent): void {
    if (e.event.includes("|")) return; // a subgraph's
    const json = this.#o.json;
    if (e.event === "debug") {
      const d = e.data as { type?: string; node?: string; status?: "done" | "interrupted" | "error"; error?: string };
      if (d.type === "task" && d.node) {
        if (json) this.#emit({ event: "node", node: d.node, status: "started" });
        else this.#printer.nodeStarted(d.node);
      } else if (d.type === "task_result" && d.node && d.status) {
        if (json) this.#emit({ event: "node", node: d.node, status: d.status, error: d.error });
        else this.#printer.nodeFinished(d.node, d.status, d.error);
      }
    } else if (e.event === "messages") {
      const [chunk, meta] = e.data as [{ type?: string; content?: unknown }, { langgraph_node?: string }];
      if (chunk?.type !== "AIMessageChunk" || typeof chunk.content !== "string" || !chunk.content) return;
      if (json) this.#emit({ event: "token", node: meta?.langgraph_node, text: chunk.content });
      else this.#printer.token(chunk.content);
    } else if (e.event === "updates" && json) {
      this.#emit({ event: "update", update: e.data });
    }
  }

  #refused(error: Error): void {
    if (this.#o.json) this.#emit({ event: "refused", thread: this.#o.threadId, message: error.message });
    else this.#say(`✗ ${error.message}`);
  }

  #failed(end: RunEnd): number {
    const { threadId } = this.#o;
    const error = end.error ?? { error: end.status, message: `The run ended with status ${end.status}.` };
    const message = error.message.includes(error.error) ? error.message : `${error.message} (${error.error})`;
    if (this.#o.json) this.#emit({ event: "error", thread: threadId, message });
    else this.#o.io.stderr.write(`✗ The run failed: ${message}\n  Thread ${threadId} keeps its last checkpoint.\n`);
    this.#sayUsage();
    return 1;
  }

  #done(values: Record<string, unknown>): number {
    if (this.#o.json) {
      this.#emit({ event: "done", thread: this.#o.threadId, values, ...(this.#usage ? { usage: this.#usage } : {}) });
      return 0;
    }
    this.#say(`✔ Done · thread ${this.#o.threadId}`);
    for (const [key, value] of Object.entries(values)) this.#say(`  ${key}: ${showValue(value, 300)}`);
    this.#sayUsage();
    return 0;
  }

  /** The session's token usage (every run of it), when a model was called and not in JSON mode. */
  #sayUsage(): void {
    if (this.#usage && !this.#o.json) this.#say(usageLine(this.#usage));
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
    this.#sayUsage();
    return EXIT_PAUSED;
  }

  /**
   * Asks for the graph's required input keys ({@link requiredInputKeys}), each read as its type; Enter
   * leaves one empty. Refused (exit 2) when stdin is not a terminal or in `--json` mode: nobody to ask.
   */
  async #askInputs(): Promise<{ input: Record<string, unknown> } | { stop: number }> {
    const { graphId, io, json } = this.#o;
    const schema = this.#o.runs.graph(graphId).graph.getSchemas().input;
    const keys = requiredInputKeys(schema);
    if (keys.length === 0) return { input: {} };
    const example = `trellis run ${graphId} ${keys.map((k) => `${k}=…`).join(" ")}`;
    if (json || (io.stdin as { isTTY?: boolean }).isTTY !== true) {
      throw new CliError(
        `${graphId} takes ${keys.join(", ")} as input, and trellis run asks for ${keys.length === 1 ? "it" : "them"} only ` +
          `on a terminal${json ? " without --json" : ""}. Give ${keys.length === 1 ? "it" : "them"} as arguments: ${example} ` +
          `(or --input '{…}'; --input '{}' runs with the defaults).`,
        2,
      );
    }
    this.#say(`${graphId} takes ${keys.length === 1 ? "this input" : "these inputs"} (Enter leaves one empty):`);
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    const input: Record<string, unknown> = {};
    for (const key of keys) {
      for (;;) {
        const line = await this.#ask(`${key} (${describeField(properties[key] ?? {})})`);
        if (line === undefined) {
          io.stderr.write(`No input given: nothing was run. Next time: ${example}\n`);
          return { stop: 2 };
        }
        if (line === "") break;
        try {
          Object.assign(input, inputFromFields([`${key}=${line}`], schema));
          break;
        } catch (error) {
          if (!(error instanceof CliError)) throw error;
          this.#say(`✗ ${error.message}`);
        }
      }
    }
    return { input };
  }

  /** The next line typed, or undefined when stdin ended or Ctrl+C stopped the session. */
  async #ask(question: string): Promise<string | undefined> {
    const { io, json, lines, stop } = this.#o;
    if (!json) io.stdout.write(`? ${question} › `);
    let onStop: (() => void) | undefined;
    const stopped = new Promise<undefined>((resolve) => {
      onStop = () => resolve(undefined);
      if (stop.aborted) onStop();
      else stop.addEventListener("abort", onStop, { once: true });
    });
    const line = await Promise.race([lines.next(), stopped]);
    stop.removeEventListener("abort", onStop as () => void);
    if (!json && line !== undefined && io.stdout.isTTY !== true) io.stdout.write(`${line}\n`);
    if (!json && line === undefined) io.stdout.write("\n");
    return line;
  }

  #ended(): Next {
    return { stop: this.#o.stop.aborted ? "stop" : "eof" };
  }

  async #askInterrupts(state: StateSnapshot): Promise<Next> {
    const answers: Record<string, unknown> = {};
    for (const pending of state.interrupts as Interrupt[]) {
      const pause = readPause(pending.value);
      if (this.#o.json) {
        this.#emit({ event: "interrupt", thread: this.#o.threadId, interrupt: pending, answer: pause.kind });
      } else {
        this.#say(`⏸ ${pending.node} is waiting for an answer:`);
        for (const line of payloadLines(pending.value)) this.#say(line);
      }
      if (pause.kind === "questions") {
        const replies: string[] = [];
        for (const [i, q] of pause.questions.entries()) {
          const hint = q.options.length ? ` (${q.options.join("/")})` : "";
          const reply = await this.#ask(`${i + 1}. ${q.question}${hint}`);
          if (reply === undefined) return this.#ended();
          replies.push(reply);
        }
        answers[pending.id] = joinAnswers(replies);
        continue;
      }
      if (pause.kind === "form") {
        for (;;) {
          const fields: Record<string, string> = {};
          for (const [name, field] of Object.entries(pause.schema.properties)) {
            const hint = field.enum ? ` (${field.enum.join("/")})` : field.type ? ` (${field.type})` : "";
            const reply = await this.#ask(`${field.title ?? name}${hint}`);
            if (reply === undefined) return this.#ended();
            fields[name] = reply;
          }
          const read = formAnswer(pause, fields);
          if (read.ok) {
            answers[pending.id] = read.value;
            break;
          }
          for (const problem of read.problems) this.#say(`  ${problem}`);
        }
        continue;
      }
      const line = await this.#ask(`${pause.question.split("\n")[0]} (${pauseHint(pause)})`);
      if (line === undefined) return this.#ended();
      answers[pending.id] = parseTypedAnswer(pause, line);
    }
    // by interrupt id: the answers go to the questions the person saw, or the service refuses them
    return { turn: { command: { resume: answers } } };
  }

  async #askBreakpoint(state: StateSnapshot): Promise<Next> {
    if (this.#o.json) {
      this.#emit({ event: "breakpoint", thread: this.#o.threadId, next: state.next, answer: "state-update" });
    } else {
      this.#say(`⏸ Paused before ${state.next.join(", ")}.`);
    }
    for (;;) {
      const line = await this.#ask(breakpointQuestion(state.next));
      if (line === undefined) return this.#ended();
      const answer = breakpointAnswer(line);
      if (!answer) {
        this.#say("  (not an answer here; try again)");
        continue;
      }
      if ("stop" in answer) return { stop: "stop" };
      // the update is applied by the run itself, at the checkpoint the person saw (or the run fails)
      const kwargs = state.checkpointId ? { expectedCheckpointId: state.checkpointId } : {};
      if (Object.keys(answer.update).length === 0) return { turn: { input: null, kwargs } };
      return { turn: { command: { update: answer.update }, kwargs } };
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
