/**
 * The features the seed ports used to test inside the core (they now live in the apps'
 * `src/test/seed-port.test.ts`), tested here on generic graphs: static breakpoints answered by
 * `updateState` + `invoke(null)`, a bounded revision loop, `updateState(..., asNode)` re-routing,
 * nodes that return the whole state, resuming from another compiled graph, a free `interrupt()` inside
 * a tool node resumed over several rounds, a `Command({ goto })` handoff with sticky routing from START,
 * and `updates` streaming through a loop.
 */
import { describe, expect, it } from "vitest";
import {
  Command,
  channel,
  END,
  interrupt,
  MemorySaver,
  type MessageLike,
  START,
  StateGraph,
  type StateOf,
} from "../index.js";

const loopSchema = {
  topic: channel.value(""),
  draft: channel.value<string | null>(null),
  verdict: channel.value<"ok" | "redo" | "drop" | null>(null),
  note: channel.value<string | null>(null),
  rounds: channel.value(0),
  published: channel.value(false),
};
type LoopState = StateOf<typeof loopSchema>;

/** write → check ⏸ ─ok→ sign ⏸ → publish; ─redo→ redo → write (at most `max` redos, then sign); ─drop→ END. */
function buildLoop(saver: MemorySaver, max = 2) {
  const trace: string[] = [];
  const graph = new StateGraph(loopSchema)
    .addNode("write", (s) => {
      trace.push("write");
      // The ported seeds' habit: return the whole state with the changes spread over it.
      return { ...s, draft: s.note ? `${s.draft ?? ""} +${s.note}` : `draft of ${s.topic}` };
    })
    .addNode("check", () => {
      trace.push("check");
    })
    .addNode("redo", (s) => {
      trace.push("redo");
      return { rounds: s.rounds + 1 };
    })
    .addNode("sign", () => {
      trace.push("sign");
    })
    .addNode("publish", () => {
      trace.push("publish");
      return { published: true };
    })
    .addEdge(START, "write")
    .addEdge("write", "check")
    .addConditionalEdges("check", (s: LoopState) => s.verdict ?? "drop", { ok: "sign", redo: "redo", drop: END })
    .addConditionalEdges("redo", (s: LoopState) => (s.rounds >= max ? "sign" : "write"), {
      sign: "sign",
      write: "write",
    })
    .addEdge("sign", "publish")
    .addEdge("publish", END)
    .compile({ checkpointer: saver, interruptBefore: ["check", "sign"] });
  return { graph, trace };
}

describe("static breakpoints answered by updateState + invoke(null)", () => {
  it("pauses before each breakpoint with no interrupt values, and continues with LangGraph's config shape", async () => {
    const { graph, trace } = buildLoop(new MemorySaver());
    const config = { configurable: { thread_id: "bp-1" } };
    const paused = await graph.invoke({ topic: "lathe" }, config);
    expect(paused.__interrupt__).toBeUndefined();
    expect(paused.draft).toBe("draft of lathe");
    expect((await graph.getState(config)).next).toEqual(["check"]);

    await graph.updateState(config, { verdict: "ok" });
    await graph.invoke(null, config);
    expect((await graph.getState(config)).next).toEqual(["sign"]);
    const done = await graph.invoke(null, config);
    expect(done.published).toBe(true);
    expect(trace).toEqual(["write", "check", "sign", "publish"]);
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("a verdict that routes to END ends the run without the later nodes", async () => {
    const { graph, trace } = buildLoop(new MemorySaver());
    const config = { threadId: "bp-drop" };
    await graph.invoke({ topic: "x" }, config);
    await graph.updateState(config, { verdict: "drop" });
    const done = await graph.invoke(null, config);
    expect(done.published).toBe(false);
    expect(trace).toEqual(["write", "check"]);
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("a fresh compiled graph on the same saver (another process) resumes the paused thread", async () => {
    const saver = new MemorySaver();
    const first = buildLoop(saver);
    const config = { threadId: "bp-proc" };
    await first.graph.invoke({ topic: "x" }, config);
    const second = buildLoop(saver);
    await second.graph.updateState(config, { verdict: "ok" });
    await second.graph.invoke(null, config);
    const done = await second.graph.invoke(null, config);
    expect(done.published).toBe(true);
    expect(first.trace).toEqual(["write"]);
    expect(second.trace).toEqual(["check", "sign", "publish"]);
  });
});

describe("a bounded loop through a breakpoint", () => {
  it("each redo goes back through write → check ⏸; the last allowed redo routes to sign instead", async () => {
    const { graph, trace } = buildLoop(new MemorySaver(), 2);
    const config = { threadId: "loop-1" };
    await graph.invoke({ topic: "x" }, config);
    await graph.updateState(config, { verdict: "redo", note: "a" });
    const once = await graph.invoke(null, config);
    expect(once.rounds).toBe(1);
    expect(once.draft).toBe("draft of x +a");
    expect((await graph.getState(config)).next).toEqual(["check"]);

    await graph.updateState(config, { verdict: "redo", note: "b" });
    await graph.invoke(null, config);
    expect((await graph.getState(config)).next).toEqual(["sign"]);
    expect(trace.filter((n) => n === "write")).toHaveLength(2);
    expect(trace.at(-1)).toBe("redo");
  });

  it("streams the node updates of a loop in order", async () => {
    const saver = new MemorySaver();
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("work", (s) => ({ n: s.n + 1 }))
      .addNode("review", () => ({}))
      .addEdge(START, "work")
      .addEdge("work", "review")
      .addConditionalEdges("review", (s) => (s.n < 2 ? "work" : END), ["work", END])
      .compile({ checkpointer: saver });
    const nodes: string[] = [];
    for await (const chunk of graph.stream({ n: 0 }, { threadId: "st", streamMode: "updates" })) {
      nodes.push(...Object.keys(chunk as Record<string, unknown>));
    }
    expect(nodes).toEqual(["work", "review", "work", "review"]);
  });

  it("a loop past the recursion limit is an error naming the looping nodes", async () => {
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("make", (s) => ({ n: s.n + 1 }))
      .addNode("judge", () => ({}))
      .addEdge(START, "make")
      .addEdge("make", "judge")
      .addConditionalEdges("judge", () => "make", ["make"])
      .compile({ checkpointer: new MemorySaver() });
    await expect(graph.invoke({ n: 0 }, { threadId: "rl", recursionLimit: 6 })).rejects.toThrow(
      /recursion limit of 6.*"make".*"judge"|recursion limit of 6.*"judge".*"make"/s,
    );
  });
});

describe("updateState as a node, and re-sending the whole state", () => {
  const schema = {
    messages: channel.messages(),
    needsOk: channel.value(false),
    ok: channel.value<boolean | null>(null),
    done: channel.value(false),
  };
  type S = StateOf<typeof schema>;
  function build() {
    const trace: string[] = [];
    const graph = new StateGraph(schema)
      .addNode("plan", () => {
        trace.push("plan");
        return { messages: [{ role: "assistant", content: "plan" }] };
      })
      .addNode("gate", () => {
        trace.push("gate");
      })
      .addNode("act", () => {
        trace.push("act");
        return { done: true };
      })
      .addEdge(START, "plan")
      .addEdge("plan", "gate")
      .addConditionalEdges("gate", (s: S) => (!s.needsOk || s.ok === true ? "act" : s.ok === false ? "stop" : "wait"), {
        act: "act",
        stop: END,
        wait: END,
      })
      .addEdge("act", END)
      .compile({ checkpointer: new MemorySaver() });
    return { graph, trace };
  }

  it("updateState(config, values, asNode) routes from that node's edges", async () => {
    const { graph, trace } = build();
    const config = { threadId: "as-node" };
    await graph.invoke({ needsOk: true, messages: [{ role: "user", content: "go" }] }, config);
    expect(trace).toEqual(["plan", "gate"]);
    await graph.updateState(config, { ok: true }, "plan");
    expect((await graph.getState(config)).next).toEqual(["gate"]);
    const out = await graph.invoke(null, config);
    expect(out.done).toBe(true);
    expect(trace).toEqual(["plan", "gate", "gate", "act"]);
  });

  it("re-sending the returned state as input replaces its messages by id instead of doubling them", async () => {
    const { graph } = build();
    const config = { threadId: "resend" };
    const first = await graph.invoke({ needsOk: true, messages: [{ role: "user", content: "go" }] }, config);
    const { __interrupt__: _none, ...state } = first;
    const again = await graph.invoke({ ...state, ok: true }, config);
    expect(again.done).toBe(true);
    expect(again.messages.map((m: MessageLike) => m.content)).toEqual(["go", "plan", "plan"]);
    expect(new Set(again.messages.map((m: MessageLike) => m.id)).size).toBe(3);
  });
});

describe("a free interrupt() in a tool node, and a handoff with sticky routing", () => {
  interface Call {
    id: string;
    name: string;
  }
  interface Msg extends MessageLike {
    toolCalls?: Call[];
    toolCallId?: string;
    name?: string;
  }
  const schema = { messages: channel.messages<Msg>(), agent: channel.value("front") };
  type S = StateOf<typeof schema>;

  function build() {
    const calls = { front: 0, asker: 0, tools: 0, other: 0 };
    let ids = 0;
    const graph = new StateGraph(schema)
      .addNode(
        "front",
        (s) => {
          calls.front++;
          const text = String(s.messages.filter((m) => m.role === "user").at(-1)?.content ?? "");
          const target = text.includes("ask") ? "asker" : text.includes("other") ? "other" : undefined;
          if (!target) return { messages: [{ role: "assistant", content: "hi" }] };
          return new Command({ goto: target, update: { agent: target } });
        },
        { ends: ["asker", "other"] },
      )
      .addNode("other", () => {
        calls.other++;
        return { messages: [{ role: "assistant", content: "other" }] };
      })
      .addNode("asker", (s) => {
        calls.asker++;
        const answers = s.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
        if (answers.length < 2) {
          return { messages: [{ role: "assistant", content: "", toolCalls: [{ id: `c${++ids}`, name: "ask" }] }] };
        }
        return { messages: [{ role: "assistant", content: `got ${answers.join(", ")}` }] };
      })
      .addNode("tools", (s) => {
        calls.tools++;
        const call = s.messages.at(-1)?.toolCalls?.[0];
        if (!call) return {};
        const answer = interrupt<string>({ question: `answer ${call.id}` });
        return { messages: [{ role: "tool", name: call.name, toolCallId: call.id, content: answer }] };
      })
      .addConditionalEdges(START, (s: S) => s.agent, ["front", "asker", "other"])
      .addConditionalEdges("asker", (s: S) => (s.messages.at(-1)?.toolCalls?.length ? "tools" : END), ["tools", END])
      .addEdge("tools", "asker")
      .addEdge("other", END)
      .compile({ checkpointer: new MemorySaver() });
    return { graph, calls };
  }

  it("each round pauses with a new interrupt id; Command({ resume }) answers it without re-running the handoff", async () => {
    const { graph, calls } = build();
    const config = { threadId: "ask" };
    const first = await graph.invoke({ messages: [{ role: "user", content: "please ask" }] }, config);
    expect(first.__interrupt__?.[0]?.value).toEqual({ question: "answer c1" });
    expect(first.__interrupt__?.[0]?.id).toMatch(/^[0-9a-f]{32}$/);
    expect(first.agent).toBe("asker");
    expect((await graph.getState(config)).next).toEqual(["tools"]);

    const second = await graph.invoke(new Command({ resume: "one" }), config);
    expect(second.__interrupt__?.[0]?.value).toEqual({ question: "answer c2" });
    expect(second.__interrupt__?.[0]?.id).not.toBe(first.__interrupt__?.[0]?.id);

    const id = second.__interrupt__?.[0]?.id as string;
    const done = await graph.invoke(new Command({ resume: { [id]: "two" } }), config);
    expect(done.__interrupt__).toBeUndefined();
    expect(done.messages.at(-1)?.content).toBe("got one, two");
    const tool = done.messages.find((m) => m.role === "tool");
    expect(tool?.toolCallId).toBe("c1");
    expect(calls).toMatchObject({ front: 1, asker: 3 });
  });

  it("the handoff's state update makes the next input start at the chosen agent", async () => {
    const { graph, calls } = build();
    const config = { threadId: "sticky" };
    await graph.invoke({ messages: [{ role: "user", content: "the other one" }] }, config);
    const next = await graph.invoke({ messages: [{ role: "user", content: "again" }] }, config);
    expect(next.agent).toBe("other");
    expect(next.messages.at(-1)?.content).toBe("other");
    expect(calls).toMatchObject({ front: 1, other: 2 });
    const plain = await graph.invoke({ messages: [{ role: "user", content: "hello" }] }, { threadId: "plain" });
    expect(plain.messages.at(-1)?.content).toBe("hi");
  });
});
