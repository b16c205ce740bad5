import type { CheckpointSaver } from "@trellis/checkpoint";
import { channel, END, START, StateGraph } from "@trellis/core";

/** An OpenAI-shaped message, as `@trellis/models` defines it. */
export interface Msg {
  id: string;
  role: string;
  content: string;
  toolCalls?: { id: string; name: string; args: { query: string } }[];
  toolCallId?: string;
  name?: string;
}

/**
 * The tool-calling conversation of the benchmark issue: each round the model calls one tool with a
 * ~3.6 KB argument and the tool answers ~36 KB, so 50 rounds end with a message list of about 1.9 MiB.
 * Deterministic: every run with the same round count produces the same state.
 */
export function toolConversation(rounds: number, checkpointer: CheckpointSaver, snapshotEvery?: number) {
  const next = prng(42);
  const tool = fakeUuid(next);
  const turns = Array.from({ length: rounds }, () => ({
    id: fakeUuid(next),
    callId: fakeUuid(next),
    query: fakeUuid(next).repeat(100),
    resultId: fakeUuid(next),
  }));
  let turn = 0;
  const graph = new StateGraph({ messages: channel.messages<Msg>() })
    .addNode("agent", async () => {
      const t = turns[turn++];
      if (!t) return { messages: [{ id: `final-${rounds}`, role: "assistant", content: "answer".repeat(100) }] };
      const call = { id: t.callId, name: tool, args: { query: t.query } };
      return { messages: [{ id: t.id, role: "assistant", content: "", toolCalls: [call] }] };
    })
    .addNode("tools", async (s) => {
      const last = s.messages[s.messages.length - 1] as Msg;
      const t = turns[turn - 1];
      const results = (last.toolCalls ?? []).map((call) => ({
        id: t?.resultId ?? call.id,
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: `result for query: ${call.args.query}`.repeat(10),
      }));
      return { messages: results };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s) => {
      const last = s.messages[s.messages.length - 1];
      return last?.toolCalls && last.toolCalls.length > 0 ? "tools" : END;
    })
    .addEdge("tools", "agent")
    .compile(snapshotEvery === undefined ? { checkpointer } : { checkpointer, snapshotEvery });
  return {
    graph,
    input: { messages: [{ id: "human-1", role: "user", content: "hi?" }] },
    recursionLimit: rounds * 2 + 10,
  };
}

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fakeUuid(next: () => number): string {
  let hex = "";
  for (let i = 0; i < 32; i++) hex += Math.floor(next() * 16).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}
