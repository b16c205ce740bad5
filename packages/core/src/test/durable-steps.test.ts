import { describe, expect, it } from "vitest";
import {
  Command,
  channel,
  END,
  interrupt,
  MemorySaver,
  type NodeContext,
  RunCancelledError,
  START,
  StateGraph,
} from "../index.js";

function draftGraph(saver: MemorySaver, model: () => Promise<string>, hold?: Promise<void>) {
  return new StateGraph({ draft: channel.value(""), answers: channel.append<string>() })
    .addNode("draft", async (_s, ctx: NodeContext) => {
      const draft = await ctx.step("llm", () => model());
      const first = interrupt<string>({ question: "tone?", draft });
      if (hold) await hold;
      const second = interrupt<string>({ question: "length?", draft });
      return { draft, answers: [first, second] };
    })
    .addEdge(START, "draft")
    .addEdge("draft", END)
    .compile({ checkpointer: saver });
}

describe("durable steps", () => {
  it("calls the model once across two interrupts and their resumes", async () => {
    const saver = new MemorySaver();
    let calls = 0;
    const model = async () => `draft #${++calls}`;
    const graph = draftGraph(saver, model);
    const config = { threadId: "steps-1" };
    const paused = await graph.invoke({}, config);
    expect(paused.__interrupt__?.[0]?.value).toEqual({ question: "tone?", draft: "draft #1" });
    const paused2 = await graph.invoke(new Command({ resume: "formal" }), config);
    expect(paused2.__interrupt__?.[0]?.value).toEqual({ question: "length?", draft: "draft #1" });
    const done = await graph.invoke(new Command({ resume: "short" }), config);
    expect(done).toEqual({ draft: "draft #1", answers: ["formal", "short"] });
    expect(calls).toBe(1);
  });

  it("survives a crash between the two interrupts, resumed by a new graph instance on the same saver", async () => {
    const saver = new MemorySaver();
    let calls = 0;
    const model = async () => `draft #${++calls}`;
    const config = { threadId: "steps-2" };
    await draftGraph(saver, model).invoke({}, config);

    // Process 1 resumes the first interrupt, then dies before it reaches the second.
    const controller = new AbortController();
    const never = new Promise<void>(() => undefined);
    const dying = draftGraph(saver, model, never);
    const run = dying.invoke(new Command({ resume: "formal" }), { ...config, signal: controller.signal });
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await expect(run).rejects.toBeInstanceOf(RunCancelledError);

    // Process 2: a fresh graph instance continues the thread.
    const fresh = draftGraph(saver, model);
    const paused = await fresh.invoke(null, config);
    expect(paused.__interrupt__?.[0]?.value).toEqual({ question: "length?", draft: "draft #1" });
    const done = await fresh.invoke(new Command({ resume: "short" }), config);
    expect(done).toEqual({ draft: "draft #1", answers: ["formal", "short"] });
    expect(calls).toBe(1);
  });

  it("re-runs only the steps that did not finish when a task fails midway", async () => {
    const saver = new MemorySaver();
    const ran: string[] = [];
    const record = (name: string, value: string) => {
      ran.push(name);
      return value;
    };
    let failOnce = true;
    const graph = new StateGraph({ out: channel.append<string>() })
      .addNode("work", async (_s, ctx) => {
        const a = await ctx.step("one", () => record("one", "1"));
        const b = await ctx.step("two", () => record("two", "2"));
        if (failOnce) {
          failOnce = false;
          throw new Error("disk full");
        }
        const c = await ctx.step("three", () => record("three", "3"));
        return { out: [a, b, c] };
      })
      .addEdge(START, "work")
      .compile({ checkpointer: saver });
    await expect(graph.invoke({}, { threadId: "steps-3" })).rejects.toThrow("disk full");
    const state = await graph.getState({ threadId: "steps-3" });
    expect(state.tasks[0]?.error?.message).toBe("disk full");
    expect(await graph.invoke(null, { threadId: "steps-3" })).toEqual({ out: ["1", "2", "3"] });
    expect(ran).toEqual(["one", "two", "three"]);
  });

  it("numbers repeated step names so each one is recorded apart", async () => {
    const saver = new MemorySaver();
    let n = 0;
    const graph = new StateGraph({ out: channel.append<number>() })
      .addNode("work", async (_s, ctx) => {
        const values = [await ctx.step("call", () => ++n), await ctx.step("call", () => ++n)];
        interrupt("ok?");
        return { out: values };
      })
      .addEdge(START, "work")
      .compile({ checkpointer: saver });
    await graph.invoke({}, { threadId: "steps-4" });
    expect(await graph.invoke(new Command({ resume: true }), { threadId: "steps-4" })).toEqual({ out: [1, 2] });
    expect(n).toBe(2);
  });
});
