/**
 * Graphs the server tests serve. Each node waits `delayMs` (honouring cancellation) and appends to
 * `log`; when `TRELLIS_TEST_LEDGER` names a file, every node start and finish is appended to it, so a
 * test can count executions across processes.
 */
import { appendFileSync } from "node:fs";
import { channel, END, emitMessageChunk, interrupt, START, StateGraph } from "@trellis/core";

const schema = {
  delayMs: channel.value(50),
  log: channel.append<string>(),
  answer: channel.value(""),
  messages: channel.messages(),
};

function ledger(line: string): void {
  const file = process.env.TRELLIS_TEST_LEDGER;
  if (file) appendFileSync(file, `${line} ${process.pid}\n`);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

function step(name: string) {
  return async (s: { delayMs: number }, ctx: { signal: AbortSignal }) => {
    ledger(`start ${name}`);
    await sleep(s.delayMs, ctx.signal);
    ledger(`end ${name}`);
    return { log: [name] };
  };
}

/** three slow steps in a row: a → b → c */
export function slowGraph() {
  return new StateGraph(schema, { name: "slow" })
    .addNode("a", step("a"))
    .addNode("b", step("b"))
    .addNode("c", step("c"))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", "c")
    .addEdge("c", END)
    .compile();
}

/** asks one question, then echoes the answer as an assistant message */
export function askGraph() {
  return new StateGraph(schema, { name: "ask" })
    .addNode("ask", () => {
      const answer = interrupt<string>({ question: "What is your name?" });
      return { answer, log: ["asked"] };
    })
    .addNode("reply", (s) => ({
      messages: [{ id: `reply-${s.answer}`, role: "assistant" as const, content: `Hello ${s.answer}` }],
      log: ["replied"],
    }))
    .addEdge(START, "ask")
    .addEdge("ask", "reply")
    .addEdge("reply", END)
    .compile();
}

/**
 * A chat turn: the agent streams "Hel" "lo" and a tool call as message chunks, the tool answers, then
 * a final assistant message arrives whole (not streamed).
 */
export function chatGraph() {
  return new StateGraph(schema, { name: "chat" })
    .addNode("agent", (s) => {
      const n = s.messages.length;
      const id = `ai-${n}`;
      const call = { id: `call-${n}`, name: "lookup", args: { q: "weather" } };
      emitMessageChunk({ type: "text", messageId: id, text: "Hel" });
      emitMessageChunk({ type: "text", messageId: id, text: "lo" });
      emitMessageChunk({
        type: "tool-call",
        messageId: id,
        index: 0,
        id: call.id,
        name: call.name,
        argsDelta: '{"q":',
      });
      emitMessageChunk({
        type: "tool-call",
        messageId: id,
        index: 0,
        id: call.id,
        name: call.name,
        argsDelta: '"weather"}',
      });
      const message = { id, role: "assistant" as const, content: "Hello", toolCalls: [call] };
      emitMessageChunk({ type: "message", message });
      return { messages: [message] };
    })
    .addNode("tools", (s) => {
      const last = s.messages.at(-1) as { toolCalls?: Array<{ id: string }> };
      const callId = last.toolCalls?.[0]?.id ?? "";
      return { messages: [{ id: `tool-${callId}`, role: "tool" as const, content: "sunny", toolCallId: callId }] };
    })
    .addNode("final", (s) => ({
      messages: [{ id: `final-${s.messages.length}`, role: "assistant" as const, content: "It is sunny." }],
    }))
    .addEdge(START, "agent")
    .addEdge("agent", "tools")
    .addEdge("tools", "final")
    .addEdge("final", END)
    .compile();
}

/** asks a question, then works slowly on the answer */
export function askThenSlowGraph() {
  return new StateGraph(schema, { name: "ask-then-slow" })
    .addNode("ask", () => ({ answer: interrupt<string>({ question: "Topic?" }), log: ["asked"] }))
    .addNode("work", step("work"))
    .addEdge(START, "ask")
    .addEdge("ask", "work")
    .addEdge("work", END)
    .compile();
}
