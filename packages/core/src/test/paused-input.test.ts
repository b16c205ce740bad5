/**
 * Input that arrives while a thread waits on an interrupt (`onInputWhilePaused`), the resume binding a
 * server uses (`bindResume`, `expectedCheckpointId`), the outcome of `streamEvents`, and control-flow
 * values made by a second copy of the package.
 */
import { describe, expect, it } from "vitest";
import {
  bindResume,
  Command,
  channel,
  END,
  GraphInterrupt,
  interrupt,
  MemorySaver,
  type PausedInputPolicy,
  Send,
  START,
  StateGraph,
  TrellisError,
} from "../index.js";
import { caught } from "./caught.js";

type Msg = {
  id?: string;
  role: string;
  content: string;
  toolCalls?: Array<{ id: string; name: string; args: unknown }>;
};

/** An agent that asks for a tool, and the tool pauses for a clarification. */
function clarifier(policy?: PausedInputPolicy) {
  const seen: string[] = [];
  const graph = new StateGraph({ messages: channel.messages<Msg>(), answer: channel.value("") })
    .addNode("agent", (s) => {
      const last = s.messages.at(-1);
      seen.push(String(last?.content));
      if (last?.role === "tool") return { messages: [{ role: "assistant", content: `done: ${last.content}` }] };
      return {
        messages: [
          { role: "assistant", content: "", toolCalls: [{ id: `call-${seen.length}`, name: "ask", args: {} }] },
        ],
      };
    })
    .addNode("tool", (s) => {
      const call = s.messages.at(-1)?.toolCalls?.[0];
      const answer = interrupt<string>({ question: "Which address?" });
      return { answer, messages: [{ role: "tool", toolCallId: call?.id, content: answer } as Msg] };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s) => (s.messages.at(-1)?.toolCalls?.length ? "tool" : END))
    .addEdge("tool", "agent")
    .compile({ checkpointer: new MemorySaver(), ...(policy ? { onInputWhilePaused: policy } : {}) });
  return { graph, seen };
}

async function drain(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of events) {
    // only the end matters
  }
}

/** Two pauses in a row: a review, then an approval. */
function reviewThenApprove() {
  return new StateGraph({ log: channel.append<string>() })
    .addNode("review", () => ({ log: [`review:${interrupt<string>("review?")}`] }))
    .addNode("approve", () => ({ log: [`approve:${interrupt<string>("approve?")}`] }))
    .addEdge(START, "review")
    .addEdge("review", "approve")
    .addEdge("approve", END)
    .compile({ checkpointer: new MemorySaver() });
}

const user = (content: string) => ({ messages: [{ role: "user", content }] });

describe("input while paused", () => {
  it("restart (the default): the pause is discarded, the open tool call gets a reply, the input starts from START", async () => {
    const { graph } = clarifier();
    const config = { threadId: "restart" };
    await graph.invoke(user("write a report"), config);
    expect((await graph.getState(config)).interrupts).toHaveLength(1);
    await graph.invoke(user("something else"), config);
    const state = await graph.getState(config);
    const msgs = state.values.messages;
    // the first call has a reply, placed before the new user message
    const reply = msgs.findIndex((m) => (m as { toolCallId?: string }).toolCallId === "call-1");
    const next = msgs.findIndex((m) => m.content === "something else");
    expect(reply).toBeGreaterThan(0);
    expect(reply).toBeLessThan(next);
    expect(msgs[reply]?.content).toMatch(/Not answered/);
    // every tool call in the conversation has exactly one reply except the one now pending
    expect(state.interrupts).toHaveLength(1);
    expect(state.next).toEqual(["tool"]);
  });

  it("resume: the input answers the pending interrupt; no new pass starts", async () => {
    const { graph, seen } = clarifier({ resume: (input) => (input.messages as Msg[]).at(-1)?.content });
    const config = { threadId: "resume" };
    await graph.invoke(user("write a report"), config);
    const done = await graph.invoke(user("Dorpsplein 14"), config);
    expect(done.answer).toBe("Dorpsplein 14");
    expect(done.__interrupt__).toBeUndefined();
    expect(seen).toEqual(["write a report", "Dorpsplein 14"]);
    expect(done.messages.at(-1)?.content).toBe("done: Dorpsplein 14");
  });

  it("resume with several pending interrupts is AMBIGUOUS_RESUME and writes nothing", async () => {
    const graph = new StateGraph({ a: channel.value(""), b: channel.value("") })
      .addNode("a", () => ({ a: interrupt<string>("a?") }))
      .addNode("b", () => ({ b: interrupt<string>("b?") }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: new MemorySaver(), onInputWhilePaused: "resume" });
    const config = { threadId: "two" };
    await graph.invoke({}, config);
    const before = (await graph.getState(config)).checkpointId;
    await caught(() => graph.invoke({ a: "x" }, config), TrellisError, "AMBIGUOUS_RESUME");
    expect((await graph.getState(config)).checkpointId).toBe(before);
  });

  it("reject: THREAD_PAUSED listing the pending interrupt; nothing is written", async () => {
    const { graph } = clarifier("reject");
    const config = { threadId: "reject" };
    await graph.invoke(user("write a report"), config);
    const before = await graph.getState(config);
    const error = await caught(() => graph.invoke(user("hello?"), config), TrellisError, "THREAD_PAUSED");
    expect(error.message).toMatch(/waiting for an answer/);
    expect((error.details as { interrupts: Array<{ id: string }> }).interrupts[0]?.id).toBe(before.interrupts[0]?.id);
    const after = await graph.getState(config);
    expect(after.checkpointId).toBe(before.checkpointId);
    // a Command still answers it
    const done = await graph.invoke(new Command({ resume: "Kerkstraat 1" }), config);
    expect(done.answer).toBe("Kerkstraat 1");
  });

  it("an unknown policy is a GRAPH_VALIDATION error at compile time", () => {
    const builder = new StateGraph({ a: channel.value("") }).addNode("n", () => ({})).addEdge(START, "n");
    expect(() => builder.compile({ onInputWhilePaused: "ignore" as unknown as PausedInputPolicy })).toThrow(
      /onInputWhilePaused/,
    );
  });
});

describe("binding a resume to the pause it answers", () => {
  it("bindResume turns one value into the id map of the pending interrupt, and refuses what the run would refuse", async () => {
    const { graph } = clarifier();
    const config = { threadId: "bind" };
    expect(() => bindResume({ checkpointId: undefined, interrupts: [], next: [] }, "x")).toThrow(/no checkpoint/);
    await graph.invoke(user("go"), config);
    const snapshot = await graph.getState(config);
    const id = snapshot.interrupts[0]?.id as string;
    expect(bindResume(snapshot, "Kerkstraat")).toEqual({ kind: "interrupts", resume: { [id]: "Kerkstraat" } });
    expect(() => bindResume(snapshot, { ["0".repeat(32)]: "x" })).toThrow(/no pending interrupt/);
  });

  it("bindResume at a static breakpoint continues", async () => {
    const graph = new StateGraph({ a: channel.value("") })
      .addNode("n", () => ({ a: "ran" }))
      .addEdge(START, "n")
      .compile({ checkpointer: new MemorySaver(), interruptBefore: ["n"] });
    await graph.invoke({}, { threadId: "bp" });
    expect(bindResume(await graph.getState({ threadId: "bp" }), "go")).toEqual({ kind: "continue" });
  });

  it("expectedCheckpointId: a resume accepted for one pause fails with RESUME_MISMATCH once the thread moved on", async () => {
    const graph = reviewThenApprove();
    const config = { threadId: "race" };
    await graph.invoke({}, config);
    const seen = await graph.getState(config);
    // two clients saw the same pause and both answered it
    const first = { ...config, expectedCheckpointId: seen.checkpointId as string };
    await graph.invoke(new Command({ resume: "ok" }), first);
    const moved = await graph.getState(config);
    await caught(() => graph.invoke(new Command({ resume: "ok" }), first), TrellisError, "RESUME_MISMATCH");
    expect((await graph.getState(config)).checkpointId).toBe(moved.checkpointId);
    expect(moved.values.log).toEqual(["review:ok"]);
  });
});

describe("streamEvents outcome", () => {
  it("says how the run ended, with the pending interrupts, without reading the thread again", async () => {
    const { graph } = clarifier();
    const events = graph.streamEvents(user("go"), { threadId: "outcome", streamMode: ["updates"] });
    let n = 0;
    for await (const _ of events) n++;
    expect(n).toBeGreaterThan(0);
    const outcome = await events.outcome;
    expect(outcome.status).toBe("interrupted");
    expect(outcome.interrupts[0]?.value).toEqual({ question: "Which address?" });
    expect(outcome.next).toEqual(["tool"]);
  });

  it("rejects with the run's error, and a failure nobody asks about is not an unhandled rejection", async () => {
    const graph = new StateGraph({ a: channel.value("") })
      .addNode("boom", () => {
        throw new Error("boom");
      })
      .addEdge(START, "boom")
      .compile();
    const events = graph.streamEvents({});
    await expect(drain(events)).rejects.toThrow("boom");
    await expect(events.outcome).rejects.toThrow("boom");
    // nobody reads the outcome of this one: vitest fails the file on an unhandled rejection
    const ignored = graph.streamEvents({});
    await expect(drain(ignored)).rejects.toThrow("boom");
  });
});

describe("a second copy of @trellis/core", () => {
  it("its Command, Send and GraphInterrupt are recognised by this copy's runtime", async () => {
    // the compiled package is a second module instance next to the sources these tests import
    const compiled = "../../dist/index.js"; // not a literal: the type checker must not take dist as input
    const other = (await import(compiled)) as typeof import("../index.js");
    expect(other.Command).not.toBe(Command);
    const { graph } = clarifier();
    const config = { threadId: "copies" };
    await graph.invoke(user("go"), config);
    const done = await graph.invoke(new other.Command({ resume: "Markt 3" }), config);
    expect(done.answer).toBe("Markt 3");
    expect(new other.Command({ goto: "x" })).toBeInstanceOf(Command);
    expect(new other.Send("n", 1)).toBeInstanceOf(Send);
    expect(new other.GraphInterrupt([])).toBeInstanceOf(GraphInterrupt);
    expect({ resume: 1 }).not.toBeInstanceOf(Command);
  });
});

describe("fork", () => {
  it("makes a copy of an earlier checkpoint the head, keeping its pending interrupts and their ids", async () => {
    const graph = reviewThenApprove();
    const config = { threadId: "fork" };
    await graph.invoke({}, config);
    const before = await graph.getState(config);
    await graph.invoke(new Command({ resume: "ok" }), config);
    expect((await graph.getState(config)).next).toEqual(["approve"]);
    const { checkpointId } = await graph.fork(config, { from: before.checkpointId as string, keepWrites: 1 });
    const forked = await graph.getState(config);
    expect(forked.checkpointId).toBe(checkpointId);
    expect(forked.metadata?.source).toBe("fork");
    expect(forked.next).toEqual(["review"]);
    expect(forked.values.log).toEqual([]);
    expect(forked.interrupts.map((i) => i.id)).toEqual(before.interrupts.map((i) => i.id));
    // the same id answers it again, and the history keeps the branch that was undone
    const id = before.interrupts[0]?.id as string;
    const again = await graph.invoke(new Command({ resume: { [id]: "redo" } }), config);
    expect(again.log).toEqual(["review:redo"]);
    const history: unknown[] = [];
    for await (const s of graph.getStateHistory(config)) history.push(s.metadata?.source);
    expect(history).toContain("fork");
    await expect(graph.fork(config, { from: "nope" })).rejects.toThrow(/no checkpoint nope/);
  });
});

describe("input while stopped at a static breakpoint", () => {
  function gated(policy: PausedInputPolicy) {
    const runs = { publish: 0 };
    const graph = new StateGraph({ draft: channel.value(""), note: channel.value(""), fail: channel.value(false) })
      .addNode("write", (s) => {
        if (s.fail) throw new Error("model down");
        return { draft: "v1" };
      })
      .addNode("publish", (s) => {
        runs.publish++;
        return { note: `published ${s.draft}${s.note ? ` (${s.note})` : ""}` };
      })
      .addEdge(START, "write")
      .addEdge("write", "publish")
      .addEdge("publish", END)
      .compile({ checkpointer: new MemorySaver(), interruptBefore: ["publish"], onInputWhilePaused: policy });
    return { graph, runs };
  }

  it("reject: THREAD_PAUSED naming the breakpoint; nothing is written, nothing published", async () => {
    const { graph, runs } = gated("reject");
    const config = { threadId: "bp-reject" };
    await graph.invoke({}, config);
    const before = await graph.getState(config);
    expect(before.next).toEqual(["publish"]);
    const error = await caught(() => graph.invoke({ note: "hi" }, config), TrellisError, "THREAD_PAUSED");
    expect(error.message).toMatch(/breakpoint before "publish"/);
    expect((error.details as { breakpoint: string[] }).breakpoint).toEqual(["publish"]);
    expect((await graph.getState(config)).checkpointId).toBe(before.checkpointId);
    expect(runs.publish).toBe(0);
  });

  it("reject does not hold a thread whose node failed: new input starts over", async () => {
    const { graph } = gated("reject");
    const config = { threadId: "bp-failed" };
    await expect(graph.invoke({ fail: true }, config)).rejects.toThrow("model down");
    expect((await graph.getState(config)).next).toEqual(["write"]);
    const paused = await graph.invoke({ fail: false }, config);
    expect(paused.draft).toBe("v1");
  });

  it("resume: the input updates the state and the run continues past the breakpoint", async () => {
    const { graph, runs } = gated("resume");
    const config = { threadId: "bp-resume" };
    await graph.invoke({}, config);
    const done = await graph.invoke({ note: "checked" }, config);
    expect(done.note).toBe("published v1 (checked)");
    expect(runs.publish).toBe(1);
  });

  it("decideInput tells a caller the same before it runs anything", async () => {
    const { graph } = gated("resume");
    const config = { threadId: "bp-decide" };
    await graph.invoke({}, config);
    expect(graph.decideInput(await graph.getState(config), { note: "x" })).toEqual({
      kind: "continue",
      update: { note: "x" },
    });
  });
});

describe("Command({ update, resume })", () => {
  it("edits the state and answers the pause in one go: the resumed node sees the edit", async () => {
    const graph = new StateGraph({ draft: channel.value(""), log: channel.append<string>() })
      .addNode("write", () => ({ draft: "v1" }))
      .addNode("review", (s) => ({ log: [`${interrupt<string>("ok?")}: ${s.draft}`] }))
      .addEdge(START, "write")
      .addEdge("write", "review")
      .addEdge("review", END)
      .compile({ checkpointer: new MemorySaver() });
    const config = { threadId: "edit-and-resume" };
    await graph.invoke({}, config);
    const paused = await graph.getState(config);
    const done = await graph.invoke(new Command({ update: { draft: "v2 (edited)" }, resume: "approved" }), config);
    expect(done.log).toEqual(["approved: v2 (edited)"]);
    // a resume map still names the interrupt by the id the client saw
    const again = new StateGraph({ draft: channel.value(""), log: channel.append<string>() })
      .addNode("review", (s) => ({ log: [`${interrupt<string>("ok?")}: ${s.draft}`] }))
      .addEdge(START, "review")
      .compile({ checkpointer: new MemorySaver() });
    await again.invoke({ draft: "x" }, { threadId: "map" });
    const id = (await again.getState({ threadId: "map" })).interrupts[0]?.id as string;
    const out = await again.invoke(new Command({ update: { draft: "y" }, resume: { [id]: "fine" } }), {
      threadId: "map",
    });
    expect(out.log).toEqual(["fine: y"]);
    expect(paused.interrupts).toHaveLength(1);
  });

  it("with goto it is still refused", async () => {
    const graph = reviewThenApprove();
    await graph.invoke({}, { threadId: "goto" });
    await caught(
      () => graph.invoke(new Command({ goto: "approve", resume: "x" }), { threadId: "goto" }),
      TrellisError,
      "INVALID_ARGUMENT",
    );
  });
});
