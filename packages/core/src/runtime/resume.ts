import { WRITE } from "../constants.js";
import { ResumeError } from "../errors.js";
import type { Interrupt } from "./command.js";

/** An interrupt still waiting, with the task it belongs to. @internal */
export interface PendingInterrupt extends Interrupt {
  taskId: string;
}

const INTERRUPT_ID = /^[0-9a-f]{32}$/;

/**
 * `interrupt` with the task it belongs to. `taskId` comes first and is set again: a literal that adds
 * a key after a spread takes V8's slow path. @internal
 */
export function withTaskId<I extends object>(interrupt: I, taskId: string): I & { taskId: string } {
  const out = { taskId, ...interrupt };
  out.taskId = taskId;
  return out;
}

/** The interrupts recorded against a checkpoint that have no resume value yet. @internal */
export function pendingInterrupts(pending: ReadonlyMap<string, ReadonlyMap<string, unknown>>): PendingInterrupt[] {
  const out: PendingInterrupt[] = [];
  for (const [taskId, writes] of pending) {
    const recorded = writes.get(WRITE.interrupt) as Interrupt[] | undefined;
    if (!recorded) continue;
    const resumed = (writes.get(WRITE.resume) ?? {}) as Record<string, unknown>;
    for (const item of recorded) if (!Object.hasOwn(resumed, item.id)) out.push(withTaskId(item, taskId));
  }
  return out;
}

/**
 * True when `value` is a map from interrupt ids to answers rather than an answer itself: a resume that
 * names the interrupts it answers (a server binds one that does not to the pause pending when it arrived).
 *
 * @example
 * isResumeMap({ "0123456789abcdef0123456789abcdef": "yes" }); // true
 * isResumeMap({ decisions: [{ type: "approve" }] }); // false: one answer, for the single pending interrupt
 */
export function isResumeMap(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => INTERRUPT_ID.test(k));
}

/**
 * Matches a resume value to the pending interrupts: task id → (interrupt id → answer). A single value
 * answers the only pending interrupt; a map answers those it names. With `strict`, a map that names an
 * interrupt that is not pending is an error (nested runs pass maps meant partly for their parent). @internal
 */
export function resolveResume(
  pending: readonly PendingInterrupt[],
  resume: unknown,
  where: { threadId: string | undefined; strict: boolean },
): Map<string, Record<string, unknown>> {
  const byTask = new Map<string, Record<string, unknown>>();
  const put = (item: PendingInterrupt, value: unknown) => {
    const answers = byTask.get(item.taskId) ?? {};
    answers[item.id] = value;
    byTask.set(item.taskId, answers);
  };
  const thread = where.threadId ? `Thread "${where.threadId}"` : "The thread";
  if (isResumeMap(resume)) {
    const unknown: string[] = [];
    for (const [id, value] of Object.entries(resume)) {
      const item = pending.find((p) => p.id === id);
      if (item) put(item, value);
      else unknown.push(id);
    }
    if (where.strict && unknown.length > 0) {
      throw new ResumeError(
        "RESUME_MISMATCH",
        `${thread} has no pending interrupt with id ${unknown.join(", ")}. Pending: ${pending.map((p) => `${p.id} (node "${p.node}")`).join(", ") || "none"}.`,
        { details: { unknown, pending: pending.map((p) => p.id) } },
      );
    }
    return byTask;
  }
  if (pending.length === 0) {
    if (!where.strict) return byTask;
    throw new ResumeError(
      "NOTHING_TO_RESUME",
      `${thread} has no pending interrupt to resume. Check getState(config).interrupts, or start a new run with an input.`,
      { details: { threadId: where.threadId } },
    );
  }
  if (pending.length > 1) {
    if (!where.strict) return byTask;
    throw new ResumeError(
      "AMBIGUOUS_RESUME",
      `${thread} has ${pending.length} pending interrupts; resume with a map from interrupt id to value: new Command({ resume: { [id]: value } }). Pending: ${pending.map((p) => `${p.id} (node "${p.node}")`).join(", ")}.`,
      { details: { pending: pending.map((p) => p.id) } },
    );
  }
  put(pending[0] as PendingInterrupt, resume);
  return byTask;
}

/**
 * How a resume binds to the pause it answers, from {@link bindResume}.
 *
 * @example
 * const binding: ResumeBinding = bindResume(await graph.getState({ threadId }), "approve", threadId);
 * if (binding.kind === "interrupts") await graph.invoke(new Command({ resume: binding.resume }), { threadId });
 */
export type ResumeBinding =
  /** The answers, keyed by the ids of the interrupts pending now. */
  | { kind: "interrupts"; resume: Record<string, unknown> }
  /** The thread stands at a static breakpoint (or after a failure): the resume continues it. */
  | { kind: "continue" };

/**
 * The resume rule of the runtime, for callers that accept a resume before running it (a server's
 * request handler): checks `resume` against the thread's pause and binds it to the interrupts pending
 * now. A single value answers the only pending interrupt; a map answers those it names. Throws
 * `NOTHING_TO_RESUME` (no checkpoint, or nothing paused), `RESUME_MISMATCH` (a map naming an interrupt
 * that is not pending) or `AMBIGUOUS_RESUME` (one value, several pending) — the errors the run itself
 * would fail with.
 *
 * @example
 * const binding = bindResume(await graph.getState({ threadId }), "approved");
 * const resume = binding.kind === "interrupts" ? binding.resume : "approved";
 */
export function bindResume(
  snapshot: { checkpointId?: string | undefined; interrupts: readonly Interrupt[]; next: readonly string[] },
  resume: unknown,
  threadId?: string,
): ResumeBinding {
  const thread = threadId ? `Thread "${threadId}"` : "The thread";
  if (!snapshot.checkpointId) {
    throw new ResumeError("NOTHING_TO_RESUME", `${thread} has no checkpoint yet: start it with an input.`, {
      details: { threadId },
    });
  }
  if (snapshot.interrupts.length === 0 && !isResumeMap(resume) && snapshot.next.length > 0) return { kind: "continue" };
  const pending = snapshot.interrupts.map((i) => withTaskId(i, i.id));
  const byTask = resolveResume(pending, resume, { threadId, strict: true });
  const bound: Record<string, unknown> = {};
  for (const answers of byTask.values()) Object.assign(bound, answers);
  return { kind: "interrupts", resume: bound };
}
