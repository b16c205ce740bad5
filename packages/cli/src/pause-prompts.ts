/**
 * What the terminal asks when a run pauses. An interrupt's value is read by `readPause` from
 * `@trellis/protocol` — the one reading the studio and AG-UI use too — and answered with
 * `parseTypedAnswer` (see `commands/run.ts`). A static breakpoint has no value: the terminal offers a
 * JSON state update, or nothing to go on unchanged. No app's state keys are known here; an app that
 * wants a form declares it in its interrupt value (`askForm` in `@trellis/protocol`).
 */

/**
 * What a line typed at a breakpoint means: the state update to apply (maybe empty), or stop.
 *
 * @example
 * const answer: BreakpointAnswer | undefined = breakpointAnswer(line);
 * if (answer && "update" in answer) await graph.updateState({ threadId }, answer.update);
 */
export type BreakpointAnswer = { update: Record<string, unknown> } | { stop: true };

/**
 * Turns a line typed at a breakpoint into a state update: a JSON object of state keys, or empty to go
 * on unchanged; `q` stops. Anything else is not an answer (undefined: ask again).
 *
 * @example
 * breakpointAnswer('{"note":"x"}'); // { update: { note: "x" } }
 * breakpointAnswer(""); // { update: {} }
 */
export function breakpointAnswer(line: string): BreakpointAnswer | undefined {
  const text = line.trim();
  if (/^(q|quit|exit)$/i.test(text)) return { stop: true };
  if (text === "") return { update: {} };
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      return { update: parsed as Record<string, unknown> };
    }
  } catch {
    // not JSON: asked again
  }
  return undefined;
}

/**
 * The question asked at a breakpoint.
 *
 * @example
 * breakpointQuestion(["publish"]); // "Paused before publish. A JSON state update, or empty to go on (q stops):"
 */
export function breakpointQuestion(next: readonly string[]): string {
  return `Paused before ${next.join(", ")}. A JSON state update, or empty to go on (q stops):`;
}
