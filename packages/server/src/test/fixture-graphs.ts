/**
 * Graphs the server tests serve. Each node waits `delayMs` (honouring cancellation) and appends to
 * `log`; when `TRELLIS_TEST_LEDGER` names a file, every node start and finish is appended to it, so a
 * test can count executions across processes.
 */
import { appendFileSync } from "node:fs";
import { channel, END, interrupt, START, StateGraph } from "@trellis/core";

const schema = {
  delayMs: channel.value(50),
  log: channel.append<string>(),
  answer: channel.value(""),
  messages: channel.messages(),
};

function ledger(line: string): void {
  const file = process.env.TRELLIS_TEST_LEDGER;
  if (file) appendFileSync(file, `${line}\n`);
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
