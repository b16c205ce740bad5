import { TrellisError } from "@trellis/checkpoint";
import type { StateSchema } from "../state.js";
import type { Interrupt } from "./command.js";
import { resolveResume, withTaskId } from "./resume.js";

/**
 * What a graph does with a new input (not a `Command`) that arrives while its thread waits on an
 * `interrupt()`:
 * - `"restart"` (the default, LangGraph's behaviour): the pending pause is discarded and the input
 *   starts a new pass from START. Tool calls left without a reply get one saying so.
 * - `"resume"`: the input is the answer to the single pending interrupt (several pending is an
 *   `AMBIGUOUS_RESUME` error). `{ resume: (input) => answer }` picks the answer out of the input. At a
 *   static breakpoint, the input updates the state and the run continues past it.
 * - `"reject"`: a `THREAD_PAUSED` error (409 over HTTP) listing the pending interrupts (or the
 *   breakpoint the thread stopped at); nothing is written.
 *
 * @example
 * const graph = builder.compile({ checkpointer, onInputWhilePaused: { resume: (input) => lastUserText(input) } });
 */
export type PausedInputPolicy =
  | "restart"
  | "resume"
  | "reject"
  | { resume: (input: Record<string, unknown>) => unknown };

/**
 * What a paused thread does with an input under a {@link PausedInputPolicy}.
 *
 * @example
 * const d: PausedInputDecision = decidePausedInput("resume", snapshot.interrupts, { answer: "yes" });
 * if (d.kind === "continue") await graph.updateState({ threadId }, d.update);
 */
export type PausedInputDecision =
  | { kind: "start" }
  /** The input answers the pending interrupt: resume with this id → answer map. */
  | { kind: "resume"; resume: Record<string, unknown> }
  /** The thread waits at a static breakpoint: the input updates the state and the run goes on past it. */
  | { kind: "continue"; update: Record<string, unknown> };

/**
 * The nodes a thread waits before because it stopped at one of the graph's static breakpoints
 * (`interruptBefore` one of its next nodes, or `interruptAfter` a node that wrote its last step);
 * empty when it waits on an interrupt, ended, or stopped for another reason (a failure, a drain).
 * @internal
 */
export function breakpointOf(
  graph: { interruptBefore: ReadonlySet<string> | "*"; interruptAfter: ReadonlySet<string> | "*" },
  thread: { next: readonly string[]; writers: readonly string[]; interrupts: number },
): string[] {
  if (thread.interrupts > 0 || thread.next.length === 0) return [];
  const hits = (set: ReadonlySet<string> | "*", nodes: readonly string[]) =>
    set === "*" ? nodes.length > 0 : nodes.some((n) => set.has(n));
  return hits(graph.interruptBefore, thread.next) || hits(graph.interruptAfter, thread.writers) ? [...thread.next] : [];
}

/**
 * The policy's name: `"restart"`, `"resume"` or `"reject"`.
 *
 * @example
 * pausedInputPolicyName({ resume: (input) => input.answer }); // "resume"
 */
export function pausedInputPolicyName(policy: PausedInputPolicy): "restart" | "resume" | "reject" {
  return typeof policy === "string" ? policy : "resume";
}

/**
 * Applies a graph's {@link PausedInputPolicy} to an input that arrives while `pending` interrupts wait.
 * The one rule every door uses (the runtime when the run starts; a server when it accepts the request).
 * Throws `THREAD_PAUSED` under `reject` and `AMBIGUOUS_RESUME` under `resume` with several pending.
 *
 * @example
 * const d = decidePausedInput("resume", snapshot.interrupts, { messages: [userMessage("yes")] });
 * if (d.kind === "resume") await graph.invoke(new Command({ resume: d.resume }), config);
 */
export function decidePausedInput(
  policy: PausedInputPolicy,
  pending: readonly Interrupt[],
  input: Record<string, unknown>,
  threadId?: string,
  breakpoint: readonly string[] = [],
): PausedInputDecision {
  if (pending.length === 0 && breakpoint.length === 0) return { kind: "start" };
  const name = pausedInputPolicyName(policy);
  if (name === "restart") return { kind: "start" };
  const thread = threadId ? `Thread "${threadId}"` : "The thread";
  if (name === "reject") {
    const listed = pending.map((p) => `${p.id} (node "${p.node}")`).join(", ");
    const waiting =
      pending.length > 0
        ? `is waiting for an answer to ${pending.length === 1 ? "a question" : `${pending.length} questions`} (${listed}): answer with a resume command`
        : `stopped at a breakpoint before ${breakpoint.map((n) => `"${n}"`).join(", ")}: continue it (a resume command, or an update and a run with no input)`;
    throw new TrellisError("THREAD_PAUSED", `${thread} ${waiting}, or cancel the pause before sending new input.`, {
      details: {
        threadId,
        interrupts: pending.map((p) => ({ id: p.id, node: p.node, value: p.value })),
        ...(breakpoint.length > 0 ? { breakpoint } : {}),
      },
    });
  }
  if (pending.length === 0) return { kind: "continue", update: input };
  const answer = typeof policy === "object" ? policy.resume(input) : input;
  const byTask = resolveResume(
    pending.map((p) => withTaskId(p, p.id)),
    answer,
    { threadId, strict: true },
  );
  const resume: Record<string, unknown> = {};
  for (const answers of byTask.values()) Object.assign(resume, answers);
  return { kind: "resume", resume };
}

/** A message as far as closing tool calls needs to read it. */
interface ToolCallMessage {
  role?: string;
  type?: string;
  toolCalls?: Array<{ id?: string; name?: string }>;
  tool_calls?: Array<{ id?: string; name?: string }>;
  toolCallId?: string;
  tool_call_id?: string;
}

/**
 * Tool replies for the tool calls a discarded pause leaves unanswered, per `messages` channel: an
 * assistant message that asked for tools must be followed by one reply per call, or real providers
 * refuse the conversation. Empty when nothing dangles.
 * @internal
 */
export function closeDanglingToolCalls(
  schema: StateSchema,
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [key, channel] of Object.entries(schema)) {
    if ((channel as { kind?: string }).kind !== "messages") continue;
    const list = values[key];
    if (!Array.isArray(list)) continue;
    const answered = new Set<string>();
    const asked: Array<{ id: string; name: string | undefined }> = [];
    for (const m of list as ToolCallMessage[]) {
      const replyTo = m?.toolCallId ?? m?.tool_call_id;
      if (typeof replyTo === "string") answered.add(replyTo);
      for (const call of m?.toolCalls ?? m?.tool_calls ?? []) {
        if (typeof call?.id === "string") asked.push({ id: call.id, name: call.name });
      }
    }
    const replies = asked
      .filter((c) => !answered.has(c.id))
      .map((c) => ({
        role: "tool",
        toolCallId: c.id,
        ...(c.name ? { name: c.name } : {}),
        content: "Not answered: a new message arrived while this tool call waited, so the pause was discarded.",
      }));
    if (replies.length > 0) out[key] = replies;
  }
  return out;
}
