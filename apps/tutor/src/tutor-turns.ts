import { TrellisError, type TrellisErrorCode, toHttpStatus } from "@trellis/checkpoint";
import { Command, type Interrupt } from "@trellis/core";
import type { RunEnd, RunService } from "@trellis/server";
import type { SubjectState } from "./state.js";
import type { TutorGraph } from "./tutor-graph.js";

/**
 * One turn of a tutor conversation on thread `threadId`: a new message (`input`), or the answer to the
 * test question the thread waits on (`resume`).
 *
 * @example
 * const turn: TutorTurn = { threadId: "ana", resume: "B" };
 */
export type TutorTurn =
  | { threadId: string; input: Partial<SubjectState>; resume?: never }
  | { threadId: string; resume: string; input?: never };

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
  return async (turn) => {
    const input = turn.resume !== undefined ? new Command({ resume: turn.resume }) : turn.input;
    const result = await graph.run(input, { threadId: turn.threadId });
    if (result.status === "error") throw result.error;
    return { values: result.values, interrupts: result.status === "interrupted" ? result.interrupts : [] };
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
    const end = await runs.invoke({
      assistantId,
      threadId: turn.threadId,
      as: { user },
      ...(turn.resume !== undefined ? { command: { resume: turn.resume } } : { input: turn.input }),
      ifNotExists: "create",
      multitaskStrategy: "enqueue",
    });
    if (end.error) throw runFailure(end.error);
    return { values: end.values as SubjectState, interrupts: end.interrupts };
  };
}

/** A failed run's error as a `TrellisError` (codes the server does not know become `INTERNAL`). */
function runFailure(error: NonNullable<RunEnd["error"]>): TrellisError {
  const code = error.error as TrellisErrorCode;
  if (toHttpStatus(code) !== undefined) return new TrellisError(code, error.message);
  return new TrellisError("INTERNAL", `${error.error}: ${error.message}`);
}
