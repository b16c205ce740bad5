/** A message as the transcript shows it. */
export interface TranscriptTurn {
  speaker: "Human" | "Agent";
  text: string;
}

/** Limits on the transcript handed to the agent. */
export interface TranscriptLimits {
  /** Most characters; older turns are dropped first. Default 16 000 (about 4 000 tokens). */
  maxChars?: number;
  /** Most messages. Default 40. */
  maxMessages?: number;
}

/** The first line of a transcript whose oldest turns were dropped. */
export const OMITTED_MARKER = "(Earlier messages of this conversation were omitted.)";

/**
 * Formats messages as the seed's transcript: one `Human: …` or `Agent: …` entry per message, oldest
 * first.
 *
 * @example
 * formatTranscript([{ role: "user", content: "Hi" }, { role: "assistant", content: "Hello!" }]);
 * // "Human: Hi\nAgent: Hello!"
 */
export function formatTranscript(messages: readonly { role: string; content: string }[]): string {
  return messages.map((m) => `${m.role === "user" ? "Human" : "Agent"}: ${m.content}`).join("\n");
}

/**
 * Reads a transcript back into turns. A line that starts with `Human: ` or `Agent: ` begins a turn;
 * other lines continue the turn before them (multi-line messages). Text before the first turn (such
 * as {@link OMITTED_MARKER}) is ignored.
 *
 * @example
 * parseTranscript("Human: Hi\nAgent: Hello!\nHow can I help?");
 * // [{ speaker: "Human", text: "Hi" }, { speaker: "Agent", text: "Hello!\nHow can I help?" }]
 */
export function parseTranscript(transcript: string): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  for (const line of transcript.split("\n")) {
    const start = /^(Human|Agent): ?(.*)$/.exec(line);
    if (start) turns.push({ speaker: start[1] as TranscriptTurn["speaker"], text: start[2] ?? "" });
    else if (turns.length > 0) (turns[turns.length - 1] as TranscriptTurn).text += `\n${line}`;
  }
  return turns;
}

/**
 * The transcript the agent gets: the stored history, then the new user message — which appears only
 * here, never in the agent's message list (the seed's reference-message trick). When the result
 * exceeds `limits`, whole turns (a human message and the replies to it) are dropped from the oldest
 * on, and {@link OMITTED_MARKER} heads what is left. The new message is always kept.
 *
 * @example
 * buildTranscript([{ role: "user", content: "Tell me about John Keells" }, { role: "assistant", content: "…" }],
 *   "What companies do they own?");
 * // "Human: Tell me about John Keells\nAgent: …\nHuman: What companies do they own?"
 */
export function buildTranscript(
  history: readonly { role: string; content: string }[],
  userMessage: string,
  limits: TranscriptLimits = {},
): string {
  const maxChars = limits.maxChars ?? 16_000;
  const maxMessages = Math.max(1, limits.maxMessages ?? 40);
  const latest = `Human: ${userMessage}`;
  const turns = groupTurns(history);
  let kept = turns.length;
  let chars = latest.length;
  let messages = 1;
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i] as string[];
    const size = turn.reduce((sum, entry) => sum + entry.length + 1, 0);
    if (chars + size + OMITTED_MARKER.length + 1 > maxChars || messages + turn.length > maxMessages) break;
    chars += size;
    messages += turn.length;
    kept = i;
  }
  const entries = turns.slice(kept).flat();
  const head = kept > 0 ? [OMITTED_MARKER] : [];
  return [...head, ...entries, latest].join("\n");
}

/** Formatted entries grouped into turns: each human message with the replies that follow it. */
function groupTurns(history: readonly { role: string; content: string }[]): string[][] {
  const turns: string[][] = [];
  for (const m of history) {
    const entry = formatTranscript([m]);
    const last = turns[turns.length - 1];
    if (m.role === "user" || !last) turns.push([entry]);
    else last.push(entry);
  }
  return turns;
}
