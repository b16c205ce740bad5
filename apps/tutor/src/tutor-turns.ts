import { isTrellisErrorCode, TrellisError } from "@trellis/checkpoint";
import { Command, type Interrupt } from "@trellis/core";
import type { RunEnd, RunService } from "@trellis/server";
import type { SubjectState } from "./state.js";
import type { InterruptInfo } from "./test-session/test-graph.js";
import type { TutorGraph } from "./tutor-graph.js";

/**
 * One turn of a tutor conversation on thread `threadId`: a new message (`input`), or the answer to the
 * test question the thread waits on (`resume`).
 *
 * @example
 * const turn: TutorTurn = { threadId: "ana", resume: "B" };
 */
export type TutorTurn =
  | { threadId: string; input: Partial<SubjectState>; resume?: never; questionNum?: never }
  | { threadId: string; resume: string; input?: never; questionNum?: number | undefined };

/**
 * The code of a refused answer: it was sent for a question that is not the one waiting (its
 * `question_num` names another, or the question it was sent for was answered meanwhile).
 */
export const QUESTION_MISMATCH = "QUESTION_MISMATCH";

/**
 * The 409 an answer gets when the question it was sent for is not the one waiting. Nothing changes.
 *
 * @example
 * throw questionMismatch("ana", 1, { action: "answer_question", question_num: 2, total_questions: 5, question_text: "…" });
 */
export function questionMismatch(threadId: string, sentFor: number | undefined, waiting: unknown): TrellisError {
  const info = waiting as InterruptInfo | undefined;
  const now = info ? `question ${info.question_num} is waiting` : "no question is waiting";
  const sent = sentFor === undefined ? "a question answered meanwhile" : `question ${sentFor}`;
  return new TrellisError(
    "CONFLICT",
    `Thread "${threadId}": this answer was sent for ${sent}, but ${now}; nothing was changed. ` +
      "Answer the waiting question (its question_num is in interrupt_info).",
    { details: { error_code: QUESTION_MISMATCH, ...(info ? { interrupt_info: info } : {}) } },
  );
}

/**
 * The resume of an answer bound to the question pending when it was accepted: keyed by that
 * interrupt's id, so it answers that question or nothing (the core refuses a resume whose interrupt is
 * no longer pending). A `questionNum` that is not the pending question's is refused at once.
 */
function boundResume(turn: TutorTurn & { resume: string }, pending: Interrupt | undefined): unknown {
  const waiting = (pending?.value as InterruptInfo | undefined)?.question_num;
  if (turn.questionNum !== undefined && waiting !== undefined && waiting !== turn.questionNum) {
    throw questionMismatch(turn.threadId, turn.questionNum, pending?.value);
  }
  return pending ? { [pending.id]: turn.resume } : turn.resume;
}

/**
 * How a turn left its thread: the values, and the interrupts it waits on now (a test question).
 *
 * @example
 * const end: TurnEnd = { values, interrupts: [] };
 */
export interface TurnEnd {
  values: SubjectState;
  interrupts: Interrupt[];
}

/**
 * Runs a tutor turn for `user` (the server's authenticated user; null when auth is off or outside a
 * server). The graph's rules apply whichever runner runs it: a new message while a test question waits
 * is refused (`THREAD_PAUSED`), an answer with no question waiting is `NOTHING_TO_RESUME`.
 *
 * @example
 * const end = await turns({ threadId: "ana", input: { messages: [userMessage("Hola")] } }, null);
 */
export type TurnRunner = (turn: TutorTurn, user: string | null) => Promise<TurnEnd>;

/**
 * Turns run by the graph in this process, on its own checkpointer: the standalone tutor
 * (`startTutorServer`, the seed's FastAPI app). Inside the Trellis server use {@link serverTurns}.
 *
 * @example
 * const turns = inProcessTurns(buildTutorGraph({ ...deps, checkpointer }));
 */
export function inProcessTurns(graph: TutorGraph): TurnRunner {
  // Turns of one thread run one after another, as the server's `enqueue` runs them.
  const queues = new Map<string, Promise<unknown>>();
  return (turn) => {
    // An answer is bound to the question pending when it arrives, before it waits for its turn.
    const accepted =
      turn.resume !== undefined ? graph.getState({ threadId: turn.threadId }).then((s) => s.interrupts[0]) : undefined;
    const previous = queues.get(turn.threadId) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async (): Promise<TurnEnd> => {
        const input =
          turn.resume !== undefined ? new Command({ resume: boundResume(turn, await accepted) }) : turn.input;
        const result = await graph.run(input, { threadId: turn.threadId });
        if (result.status === "error") throw result.error;
        return { values: result.values, interrupts: result.status === "interrupted" ? result.interrupts : [] };
      });
    queues.set(turn.threadId, run);
    void run
      .catch(() => undefined)
      .finally(() => {
        if (queues.get(turn.threadId) === run) queues.delete(turn.threadId);
      });
    return run;
  };
}

/**
 * Turns run through the Trellis server's run service (`ctx.runs` of the app's routes): each turn is a
 * run of assistant `assistantId` on the conversation's thread, so the thread has a record
 * (`GET /threads/{id}`, `/threads/search`, the studio), belongs to the user who started it, and its
 * turns queue behind each other (`enqueue`) instead of racing. An answer accepted while a question is
 * pending is bound to that question: if it was answered meanwhile (a double click), the run fails
 * with `RESUME_MISMATCH` and changes nothing.
 *
 * @example
 * const agent = new GraphAgent(ctx.graph, { turns: serverTurns(ctx.runs, ctx.assistantId) });
 */
export function serverTurns(runs: RunService, assistantId: string): TurnRunner {
  return async (turn, user) => {
    let resume: unknown;
    if (turn.resume !== undefined) {
      // Read as the user (another user's thread is a 404), then bind the answer to the question waiting.
      const thread = await runs.thread(turn.threadId, { user });
      resume = boundResume(turn, (await runs.snapshot(thread))?.interrupts[0]);
    }
    const end = await runs.invoke({
      assistantId,
      threadId: turn.threadId,
      as: { user },
      ...(turn.resume !== undefined ? { command: { resume } } : { input: turn.input }),
      ifNotExists: "create",
      multitaskStrategy: "enqueue",
    });
    if (end.error) throw runFailure(end.error);
    return { values: end.values as SubjectState, interrupts: end.interrupts };
  };
}

/** A failed run's error as a `TrellisError` (codes the server does not know become `INTERNAL`). */
function runFailure(error: NonNullable<RunEnd["error"]>): TrellisError {
  if (isTrellisErrorCode(error.error)) return new TrellisError(error.error, error.message);
  return new TrellisError("INTERNAL", `${error.error}: ${error.message}`);
}
