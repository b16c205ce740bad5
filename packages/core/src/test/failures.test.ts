import { describe, expect, it } from "vitest";
import { channel, ManualClock, MemorySaver, NodeTimeoutError, RunCancelledError, START, StateGraph } from "../index.js";

describe("retries", () => {
  it("retries with exponential backoff on the injected clock", async () => {
    const clock = new ManualClock(0);
    const attempts: number[] = [];
    const graph = new StateGraph({ ok: channel.value(false) })
      .addNode(
        "flaky",
        (_s, ctx) => {
          attempts.push(clock.now());
          if (ctx.attempt < 3) throw new Error(`try ${ctx.attempt}`);
          return { ok: true };
        },
        { retryPolicy: { maxAttempts: 3, initialInterval: 100, backoffFactor: 3, jitter: false } },
      )
      .addEdge(START, "flaky")
      .compile({ clock });
    const run = graph.invoke({});
    await clock.advance(99);
    expect(attempts).toEqual([0]);
    await clock.advance(1);
    expect(attempts).toEqual([0, 100]);
    await clock.advance(300);
    expect(await run).toEqual({ ok: true });
    expect(attempts).toEqual([0, 100, 400]);
  });

  it("gives up after maxAttempts and only retries what retryOn accepts", async () => {
    const clock = new ManualClock(0);
    let calls = 0;
    const graph = new StateGraph({ ok: channel.value(false) })
      .addNode(
        "bad",
        () => {
          calls++;
          throw new TypeError("not retryable");
        },
        { retryPolicy: { maxAttempts: 5, retryOn: (e) => !(e instanceof TypeError) } },
      )
      .addEdge(START, "bad")
      .compile({ clock });
    await expect(graph.invoke({})).rejects.toThrow("not retryable");
    expect(calls).toBe(1);
  });
});

describe("timeouts", () => {
  it("fails a node that runs past its timeout and aborts its signal", async () => {
    const clock = new ManualClock(0);
    let aborted: unknown;
    const graph = new StateGraph({ ok: channel.value(false) })
      .addNode(
        "slow",
        (_s, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener("abort", () => {
              aborted = ctx.signal.reason;
              resolve({ ok: true });
            });
          }),
        { timeout: 5_000 },
      )
      .addEdge(START, "slow")
      .compile({ clock });
    const run = graph.invoke({});
    const check = expect(run).rejects.toBeInstanceOf(NodeTimeoutError);
    await clock.advance(5_000);
    await check;
    await expect(run).rejects.toThrow('Node "slow" did not finish within its timeout of 5000 ms.');
    expect(aborted).toBeInstanceOf(NodeTimeoutError);
  });

  it("retries a timed-out node when its policy allows", async () => {
    const clock = new ManualClock(0);
    let attempt = 0;
    const graph = new StateGraph({ ok: channel.value(false) })
      .addNode(
        "slow",
        () => {
          attempt++;
          return attempt === 1 ? new Promise(() => undefined) : { ok: true };
        },
        { timeout: 1_000, retryPolicy: { maxAttempts: 2, initialInterval: 10, jitter: false, retryOn: () => true } },
      )
      .addEdge(START, "slow")
      .compile({ clock });
    const run = graph.invoke({});
    await clock.advance(1_000);
    await clock.advance(10);
    expect(await run).toEqual({ ok: true });
  });
});

describe("cancellation", () => {
  it("stops at once, keeps a consistent checkpoint, and continues later", async () => {
    const saver = new MemorySaver();
    const controller = new AbortController();
    let seenSignal: AbortSignal | undefined;
    let release: () => void = () => undefined;
    const graph = new StateGraph({ log: channel.append<string>() })
      .addNode("first", () => ({ log: ["first"] }))
      .addNode("second", (_s, ctx) => {
        seenSignal = ctx.signal;
        return new Promise((resolve) => {
          release = () => resolve({ log: ["second"] });
        });
      })
      .addEdge(START, "first")
      .addEdge("first", "second")
      .compile({ checkpointer: saver });
    const run = graph.invoke({}, { threadId: "cancel", signal: controller.signal });
    await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(run).rejects.toBeInstanceOf(RunCancelledError);
    expect(seenSignal?.aborted).toBe(true);
    const state = await graph.getState({ threadId: "cancel" });
    expect(state.values).toEqual({ log: ["first"] });
    expect(state.next).toEqual(["second"]);
    const again = graph.invoke(null, { threadId: "cancel" });
    await new Promise((r) => setTimeout(r, 10));
    release();
    expect(await again).toEqual({ log: ["first", "second"] });
  });

  it("refuses a second writer on a busy thread", async () => {
    const saver = new MemorySaver();
    let release: () => void = () => undefined;
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("wait", () => new Promise((resolve) => (release = () => resolve({ n: 1 }))))
      .addEdge(START, "wait")
      .compile({ checkpointer: saver });
    const first = graph.invoke({}, { threadId: "busy" });
    await new Promise((r) => setTimeout(r, 5));
    await expect(graph.invoke({}, { threadId: "busy" })).rejects.toMatchObject({ code: "THREAD_BUSY" });
    release();
    expect(await first).toEqual({ n: 1 });
  });
});

describe("durability modes", () => {
  function counter(saver: MemorySaver) {
    return new StateGraph({ n: channel.value(0) })
      .addNode("inc", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "inc")
      .addConditionalEdges("inc", (s) => (s.n < 5 ? "inc" : "__end__"), ["inc", "__end__"])
      .compile({ checkpointer: saver });
  }

  async function history(saver: MemorySaver, threadId: string) {
    const out = [];
    for await (const t of saver.list(threadId)) out.push(t);
    return out;
  }

  it("sync stores a checkpoint per step", async () => {
    const saver = new MemorySaver();
    await counter(saver).invoke({}, { threadId: "sync", durability: "sync" });
    expect(await history(saver, "sync")).toHaveLength(6);
  });

  it("async stores the same checkpoints by the time the run returns", async () => {
    const saver = new MemorySaver();
    const out = await counter(saver).invoke({}, { threadId: "async", durability: "async" });
    expect(out.n).toBe(5);
    const list = await history(saver, "async");
    expect(list).toHaveLength(6);
    expect(list[0]?.values).toEqual({ n: 5 });
  });

  it("exit stores one checkpoint when the run stops", async () => {
    const saver = new MemorySaver();
    const graph = counter(saver);
    await graph.invoke({}, { threadId: "exit", durability: "exit" });
    const list = await history(saver, "exit");
    expect(list).toHaveLength(1);
    expect((await graph.getState({ threadId: "exit" })).values).toEqual({ n: 5 });
  });
});

describe("draining", () => {
  it("finishes the step in progress, stores it, and stops like a breakpoint", async () => {
    const saver = new MemorySaver();
    const drain = new AbortController();
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("inc", (s) => {
        if (s.n === 2) drain.abort();
        return { n: s.n + 1 };
      })
      .addEdge(START, "inc")
      .addConditionalEdges("inc", (s) => (s.n < 5 ? "inc" : "__end__"), ["inc", "__end__"])
      .compile({ checkpointer: saver });
    const paused = await graph.run({}, { threadId: "drain", drainSignal: drain.signal });
    expect(paused).toMatchObject({ status: "interrupted", values: { n: 3 }, next: ["inc"], interrupts: [] });
    expect(await graph.invoke(null, { threadId: "drain" })).toEqual({ n: 5 });
  });

  it("withCheckpointer gives the same graph another store", async () => {
    const base = new StateGraph({ n: channel.value(0) })
      .addNode("inc", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "inc")
      .compile();
    const saver = new MemorySaver();
    const stored = base.withCheckpointer(saver);
    await stored.invoke({ n: 1 }, { threadId: "wc" });
    expect((await stored.getState({ threadId: "wc" })).values).toEqual({ n: 2 });
    expect(base.checkpointer).toBeUndefined();
  });
});
