import { describe, expect, it } from "vitest";
import {
  channel,
  END,
  emitMessageChunk,
  interrupt,
  MemorySaver,
  START,
  StateGraph,
  type StreamEvent,
} from "../index.js";

function chain() {
  return new StateGraph({ n: channel.value(0), log: channel.append<string>() })
    .addNode("a", (s, ctx) => {
      ctx.emit({ progress: "a started" });
      emitMessageChunk({ content: "tok1" });
      return { n: s.n + 1, log: ["a"] };
    })
    .addNode("b", (s) => ({ n: s.n + 1, log: ["b"] }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", END)
    .compile();
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("stream modes", () => {
  it("values: the state after the input and after every step", async () => {
    const chunks = await collect(chain().stream({ n: 0 }, { streamMode: "values" }));
    expect(chunks).toEqual([
      { n: 0, log: [] },
      { n: 1, log: ["a"] },
      { n: 2, log: ["a", "b"] },
    ]);
  });

  it("updates: one chunk per node with what it returned", async () => {
    const chunks = await collect(chain().stream({ n: 0 }, { streamMode: "updates" }));
    expect(chunks).toEqual([{ a: { n: 1, log: ["a"] } }, { b: { n: 2, log: ["b"] } }]);
  });

  it("custom and messages carry what nodes emit, with the node's name", async () => {
    const chunks = await collect(chain().stream({ n: 0 }, { streamMode: ["custom", "messages"] }));
    expect(chunks[0]).toEqual(["custom", { progress: "a started" }]);
    const [mode, [chunk, meta]] = chunks[1] as [string, [unknown, Record<string, unknown>]];
    expect(mode).toBe("messages");
    expect(chunk).toEqual({ content: "tok1" });
    expect(meta).toMatchObject({ node: "a", namespace: "", step: 0 });
  });

  it("debug: task starts, results and checkpoints", async () => {
    const chunks = (await collect(chain().stream({ n: 0 }, { streamMode: "debug" }))) as Array<{ type: string }>;
    expect(chunks.map((c) => c.type)).toEqual([
      "checkpoint",
      "task",
      "task_result",
      "checkpoint",
      "task",
      "task_result",
      "checkpoint",
    ]);
  });

  it("numbers every event with a growing sequence", async () => {
    const events = await collect(
      chain().streamEvents({ n: 0 }, { streamMode: ["values", "updates", "custom", "debug"] }),
    );
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it("with subgraphs: [namespace, chunk] and [namespace, mode, chunk]", async () => {
    const inner = new StateGraph({ n: channel.value(0) })
      .addNode("inc", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "inc")
      .compile();
    const outer = new StateGraph({ n: channel.value(0) }).addNode("sub", inner).addEdge(START, "sub").compile();
    const single = (await collect(outer.stream({ n: 1 }, { streamMode: "updates", subgraphs: true }))) as Array<
      [string[], unknown]
    >;
    expect(single).toHaveLength(2);
    expect(single[0]?.[0]).toHaveLength(1);
    expect(single[0]?.[0][0]).toMatch(/^sub:/);
    expect(single[0]?.[1]).toEqual({ inc: { n: 2 } });
    expect(single[1]).toEqual([[], { sub: { n: 2 } }]);
    const many = (await collect(outer.stream({ n: 1 }, { streamMode: ["updates"], subgraphs: true }))) as Array<
      [string[], string, unknown]
    >;
    expect(many[1]).toEqual([[], "updates", { sub: { n: 2 } }]);
    const without = await collect(outer.stream({ n: 1 }, { streamMode: "updates" }));
    expect(without).toEqual([{ sub: { n: 2 } }]);
  });

  it("reports a pending interrupt in updates mode", async () => {
    const graph = new StateGraph({ x: channel.value("") })
      .addNode("ask", () => ({ x: interrupt<string>("why?") }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const chunks = (await collect(graph.stream({}, { threadId: "s1", streamMode: "updates" }))) as Array<
      Record<string, unknown>
    >;
    expect(chunks).toHaveLength(1);
    const pending = chunks[0]?.__interrupt__ as Array<{ value: unknown }> | undefined;
    expect(pending?.[0]?.value).toBe("why?");
  });

  it("stops the run when the consumer stops reading", async () => {
    let ran = 0;
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("loop", async (s) => {
        ran++;
        await new Promise((r) => setTimeout(r, 1));
        return { n: s.n + 1 };
      })
      .addEdge(START, "loop")
      .addConditionalEdges("loop", (s) => (s.n < 1000 ? "loop" : END), ["loop", END])
      .compile();
    for await (const _ of graph.stream(
      { n: 0 },
      { streamMode: "updates", recursionLimit: 2000 },
    ) as AsyncIterable<StreamEvent>) {
      break;
    }
    await new Promise((r) => setTimeout(r, 30));
    const after = ran;
    await new Promise((r) => setTimeout(r, 30));
    expect(ran).toBe(after);
    expect(ran).toBeLessThan(10);
  });

  it("throws the node's error after the events that came before it", async () => {
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("ok", () => ({ n: 1 }))
      .addNode("bad", () => {
        throw new Error("boom");
      })
      .addEdge(START, "ok")
      .addEdge("ok", "bad")
      .compile();
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const c of graph.stream({}, { streamMode: "updates" })) seen.push(c);
      })(),
    ).rejects.toThrow("boom");
    expect(seen).toEqual([{ ok: { n: 1 } }]);
  });
});
