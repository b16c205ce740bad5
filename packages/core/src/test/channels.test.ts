/**
 * Channels: value, reduce, append, messages, and how MemorySaver stores them (deltas for append-only
 * channels, only the changed channels per step).
 */
import { describe, expect, it } from "vitest";
import {
  channel,
  END,
  MemorySaver,
  type MessageLike,
  normalizeRole,
  REMOVE_ALL_MESSAGES,
  removeMessage,
  START,
  StateGraph,
} from "../index.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("value channels", () => {
  it("keep the last write across steps and start from their default", async () => {
    const graph = new StateGraph({ status: channel.value("draft"), note: channel.value<string>() })
      .addNode("a", () => ({ status: "review" }))
      .addNode("b", (s) => ({ status: `${s.status}→approved`, note: "ok" }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    expect(await graph.invoke({})).toEqual({ status: "review→approved", note: "ok" });
    expect(await graph.invoke({ status: "x" })).toEqual({ status: "review→approved", note: "ok" });
  });

  it("a default given as a function is made fresh for every thread", async () => {
    const saver = new MemorySaver();
    const graph = new StateGraph({ tags: channel.value<string[]>(() => []) })
      .addNode("tag", (s) => ({ tags: [...s.tags, "t"] }))
      .addEdge(START, "tag")
      .compile({ checkpointer: saver });
    await graph.invoke({}, { threadId: "1" });
    expect(await graph.invoke({}, { threadId: "2" })).toEqual({ tags: ["t"] });
  });
});

describe("reduce channels", () => {
  it("fold parallel writes in task order, not in the order tasks finish", async () => {
    const graph = new StateGraph({ trail: channel.reduce((a: string, b: string) => `${a}${b}`, "") })
      .addNode("slow", async () => {
        await sleep(20);
        return { trail: "S" };
      })
      .addNode("fast", () => ({ trail: "F" }))
      .addNode("join", () => ({ trail: "|" }))
      .addEdge(START, "slow")
      .addEdge(START, "fast")
      .addEdge(["slow", "fast"], "join")
      .addEdge("join", END)
      .compile();
    expect(await graph.invoke({ trail: ">" })).toEqual({ trail: ">SF|" });
  });

  it("update types may differ from the value type", async () => {
    const graph = new StateGraph({
      counts: channel.reduce(
        // biome-ignore lint/performance/noAccumulatingSpread: a reducer returns a new value, it must not mutate.
        (acc: Record<string, number>, word: string) => ({ ...acc, [word]: (acc[word] ?? 0) + 1 }),
        () => ({}),
      ),
    })
      .addNode("count", () => ({ counts: "b" }))
      .addEdge(START, "count")
      .compile();
    expect(await graph.invoke({ counts: "a" })).toEqual({ counts: { a: 1, b: 1 } });
  });
});

describe("append channels", () => {
  it("concatenate lists (and single items) in task order", async () => {
    const graph = new StateGraph({ items: channel.append<string>(() => ["seed"]) })
      .addNode("one", () => ({ items: ["1a", "1b"] }))
      .addNode("two", () => ({ items: "2" as unknown as string[] }))
      .addEdge(START, "one")
      .addEdge(START, "two")
      .compile();
    expect(await graph.invoke({ items: ["in"] })).toEqual({ items: ["seed", "in", "1a", "1b", "2"] });
  });

  it("do not share the default list between runs", async () => {
    const graph = new StateGraph({ items: channel.append<number>() })
      .addNode("push", () => ({ items: [1] }))
      .addEdge(START, "push")
      .compile();
    await graph.invoke({});
    expect(await graph.invoke({})).toEqual({ items: [1] });
  });
});

describe("messages channels", () => {
  function chat(saver?: MemorySaver) {
    return new StateGraph({ messages: channel.messages() })
      .addNode("bot", () => ({ messages: [{ role: "assistant", content: "hi" }] }))
      .addEdge(START, "bot")
      .compile(saver ? { checkpointer: saver } : {});
  }

  it("append and assign ids to messages that have none, keeping given ids", async () => {
    const out = await chat().invoke({ messages: [{ role: "user", content: "hello", id: "u1" }] });
    expect(out.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "hello"],
      ["assistant", "hi"],
    ]);
    expect(out.messages[0]?.id).toBe("u1");
    expect(out.messages[1]?.id).toMatch(UUID);
  });

  it("normalise LangChain shapes at the boundary", async () => {
    const out = await chat().invoke({
      messages: [
        { type: "system", content: "be brief" },
        { type: "human", content: "q1" },
        { role: "human", content: "q2" },
        { role: "ai", content: "a2" },
        { type: "ai", content: "a3" },
        { type: "tool", content: "42", toolCallId: "c1" },
        "bare string",
      ],
    });
    expect(out.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "user",
      "assistant",
      "assistant",
      "tool",
      "user",
      "assistant",
    ]);
    expect(out.messages.every((m) => !("type" in m))).toBe(true);
    expect(out.messages[5]).toMatchObject({ role: "tool", content: "42", toolCallId: "c1" });
    expect(out.messages[6]).toMatchObject({ role: "user", content: "bare string" });
    expect(normalizeRole({ type: "human", content: "x" })).toEqual({ role: "user", content: "x" });
    expect(normalizeRole({ role: "ai", content: "y" })).toEqual({ role: "assistant", content: "y" });
    expect(normalizeRole({ role: "critic", content: "z" })).toEqual({ role: "critic", content: "z" });
  });

  it("take what chat UIs send: text content blocks, LangChain's and OpenAI's tool calls, tool_call_id", () => {
    expect(normalizeRole({ type: "human", content: [{ type: "text", text: "Hola " }, "amigo"] } as never)).toEqual({
      role: "user",
      content: "Hola amigo",
    });
    // an image block is kept: only all-text content becomes a string
    const image = [{ type: "image_url", image_url: { url: "data:," } }];
    expect(normalizeRole({ role: "user", content: image })).toEqual({ role: "user", content: image });
    expect(
      normalizeRole({
        type: "ai",
        content: "",
        tool_calls: [{ id: "c1", name: "lookup", args: { q: 1 }, type: "tool_call" }],
      } as never),
    ).toEqual({ role: "assistant", content: "", toolCalls: [{ id: "c1", name: "lookup", args: { q: 1 } }] });
    expect(
      normalizeRole({
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c2", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
      } as never),
    ).toMatchObject({ toolCalls: [{ id: "c2", name: "f", args: { a: 1 } }] });
    expect(normalizeRole({ type: "tool", content: "42", tool_call_id: "c1" } as never)).toEqual({
      role: "tool",
      content: "42",
      toolCallId: "c1",
    });
  });

  it("lists that extend one list keep their own ids (the index a merge keeps is checked against each list)", () => {
    const ch = channel.messages();
    const ids = (list: MessageLike[]) => list.map((m) => `${m.id}:${String(m.content)}`);
    const m = (id: string, content: string): MessageLike => ({ id, role: "assistant", content });
    const base = ch.apply([], [[m("a", "1")]]).value;
    const left = ch.apply(base, [[m("x", "left")]]).value;
    const right = ch.apply(base, [[m("z", "z"), m("x", "right's x")]]).value;
    // x sits at 1 in left and at 2 in right: each replace lands in its own list
    expect(ids(ch.apply(left, [[m("x", "left again")]]).value)).toEqual(["a:1", "x:left again"]);
    expect(ids(ch.apply(right, [[m("x", "right again")]]).value)).toEqual(["a:1", "z:z", "x:right again"]);
    // z is in right only: written to left it is appended, and base is unchanged by all of it
    expect(ids(ch.apply(left, [[m("z", "new")]]).value)).toEqual(["a:1", "x:left", "z:new"]);
    expect(ids(base)).toEqual(["a:1"]);
    expect(ids(ch.apply(base, [[m("a", "one")]]).value)).toEqual(["a:one"]);
    // a long conversation appended one step at a time still replaces by id
    let list = base;
    for (let i = 0; i < 50; i++) list = ch.apply(list, [[m(`s${i}`, String(i))]]).value;
    expect(ids(ch.apply(list, [[m("s10", "ten")]]).value)[11]).toBe("s10:ten");
    expect(ch.apply(list, [[m("s50", "50")]]).appended).toHaveLength(1);
  });

  it("replace a message with the same id in place", async () => {
    const saver = new MemorySaver();
    const graph = new StateGraph({ messages: channel.messages() })
      .addNode("edit", (s) => ({
        messages: [
          { ...(s.messages[0] as MessageLike), content: "edited" },
          { role: "assistant", content: "new" },
        ],
      }))
      .addEdge(START, "edit")
      .compile({ checkpointer: saver });
    const out = await graph.invoke(
      {
        messages: [
          { id: "m1", role: "user", content: "orig" },
          { id: "m2", role: "assistant", content: "second" },
        ],
      },
      { threadId: "r" },
    );
    expect(out.messages.map((m) => [m.id, m.content])).toEqual([
      ["m1", "edited"],
      ["m2", "second"],
      [out.messages[2]?.id, "new"],
    ]);
    // Editing through updateState works the same way (and survives a reload from the saver).
    await graph.updateState({ threadId: "r" }, { messages: [{ id: "m2", role: "assistant", content: "fixed" }] });
    const s = await graph.getState({ threadId: "r" });
    expect(s.values.messages.map((m) => m.content)).toEqual(["edited", "fixed", "new"]);
  });

  it("remove one message by id, or all of them", async () => {
    const graph = new StateGraph({ messages: channel.messages() })
      .addNode("trim", (s) => ({ messages: [removeMessage(s.messages[1]?.id as string)] }))
      .addNode("reset", () => ({
        messages: [removeMessage(REMOVE_ALL_MESSAGES), { role: "system", content: "summary", id: "sum" }],
      }))
      .addEdge(START, "trim")
      .addEdge("trim", "reset")
      .compile({ checkpointer: new MemorySaver(), interruptAfter: ["trim"] });
    const config = { threadId: "rm" };
    const afterTrim = await graph.invoke(
      {
        messages: [
          { id: "a", role: "user", content: "1" },
          { id: "b", role: "assistant", content: "2" },
          { id: "c", role: "user", content: "3" },
        ],
      },
      config,
    );
    expect(afterTrim.messages.map((m) => m.id)).toEqual(["a", "c"]);
    const afterReset = await graph.invoke(null, config);
    expect(afterReset.messages).toEqual([{ role: "system", content: "summary", id: "sum" }]);
    expect((await graph.getState(config)).values.messages).toEqual([{ role: "system", content: "summary", id: "sum" }]);
  });

  it("parallel writers replacing the same id: the later task in order wins", async () => {
    const graph = new StateGraph({ messages: channel.messages() })
      .addNode("first", async () => {
        await sleep(10);
        return { messages: [{ id: "x", role: "assistant", content: "first" }] };
      })
      .addNode("second", () => ({ messages: [{ id: "x", role: "assistant", content: "second" }] }))
      .addEdge(START, "first")
      .addEdge(START, "second")
      .compile();
    const out = await graph.invoke({ messages: [{ id: "x", role: "user", content: "orig" }] });
    expect(out.messages).toEqual([{ id: "x", role: "assistant", content: "second" }]);
  });
});

describe("undefined in an update", () => {
  it("is no write for reduce, append and messages keys, and a value for value keys", async () => {
    const graph = new StateGraph({
      items: channel.append<string>(),
      messages: channel.messages(),
      total: channel.reduce((a: number, b: number) => a + b, 0),
      note: channel.value<string>(),
    })
      // (Under exactOptionalPropertyTypes the compiler refuses these undefineds; plain JS and looser configs send them.)
      .addNode("n", (s) => ({
        items: s.items.length > 5 ? ["many"] : (undefined as unknown as string[]),
        messages: undefined as unknown as [],
        total: undefined as unknown as number,
        note: undefined,
      }))
      .addEdge(START, "n")
      .compile({ checkpointer: new MemorySaver() });
    const input = { items: ["a"], messages: [{ id: "m", role: "user", content: "hi" }], total: 2, note: "x" };
    const out = await graph.invoke(input, { threadId: "u" });
    expect(out).toEqual({ items: ["a"], messages: [{ id: "m", role: "user", content: "hi" }], total: 2 });
    expect(out.note).toBeUndefined();
    expect((await graph.getState({ threadId: "u" })).values).toStrictEqual(out);
  });
});

describe("storage of channels in MemorySaver", () => {
  const padded = (i: number) => `message number ${String(i).padStart(6, "0")} ${"x".repeat(60)}`;

  /** A chat thread: each round adds the user's message and the bot's reply. */
  async function chatBytes(rounds: number, listChannel: "messages" | "value", snapshotEvery?: number) {
    const saver = new MemorySaver();
    const schema = {
      messages: listChannel === "messages" ? channel.messages() : channel.value<MessageLike[]>(() => []),
    };
    const graph = new StateGraph(schema)
      .addNode("bot", (s) => {
        const reply = { role: "assistant", content: padded(s.messages.length), id: `a${s.messages.length}` };
        return { messages: listChannel === "messages" ? [reply] : [...s.messages, reply] };
      })
      .addEdge(START, "bot")
      .compile({ checkpointer: saver, ...(snapshotEvery ? { snapshotEvery } : {}) });
    const config = { threadId: "long" };
    for (let i = 0; i < rounds; i++) {
      const user = { role: "user", content: padded(i), id: `u${i}` };
      const state = listChannel === "messages" ? [user] : [...(await graph.getState(config)).values.messages, user];
      await graph.invoke({ messages: state }, config);
    }
    const final = await graph.getState(config);
    expect(final.values.messages).toHaveLength(rounds * 2);
    expect(final.values.messages.at(-1)?.content).toBe(padded(rounds * 2 - 1));
    return (await saver.storedBytes("long")) as number;
  }

  it("a messages channel grows linearly: 200 rounds cost about 4× what 50 cost", async () => {
    const small = await chatBytes(50, "messages", 100_000);
    const large = await chatBytes(200, "messages", 100_000);
    expect(large / small).toBeGreaterThan(3.5);
    expect(large / small).toBeLessThan(4.5);
  });

  it("with the default periodic snapshots it stays far from quadratic", async () => {
    const small = await chatBytes(50, "messages");
    const large = await chatBytes(200, "messages");
    expect(large / small).toBeLessThan(8);
  });

  it("the same conversation in a value channel is quadratic (what the deltas avoid)", async () => {
    const small = await chatBytes(50, "value");
    const large = await chatBytes(200, "value");
    expect(large / small).toBeGreaterThan(12);
  });

  it("a long in-run loop over an append channel is linear too, and reads back whole", async () => {
    const run = async (turns: number) => {
      const saver = new MemorySaver();
      const graph = new StateGraph({ log: channel.append<string>(), n: channel.value(0) })
        .addNode("turn", (s) => ({ log: [padded(s.n)], n: s.n + 1 }))
        .addEdge(START, "turn")
        .addConditionalEdges("turn", (s) => (s.n >= turns ? END : "turn"))
        .compile({ checkpointer: saver, snapshotEvery: 100_000 });
      const out = await graph.invoke({}, { threadId: "loop", recursionLimit: turns + 1 });
      expect(out.log).toHaveLength(turns);
      const reread = await graph.getState({ threadId: "loop" });
      expect(reread.values.log).toEqual(out.log);
      return (await saver.storedBytes("loop")) as number;
    };
    const ratio = (await run(200)) / (await run(50));
    expect(ratio).toBeGreaterThan(3.5);
    expect(ratio).toBeLessThan(4.5);
  });

  it("a step stores only the channels it changed", async () => {
    const big = "b".repeat(20_000);
    const run = async (ticks: number) => {
      const saver = new MemorySaver();
      const graph = new StateGraph({ doc: channel.value(""), n: channel.value(0) })
        .addNode("tick", (s) => ({ n: s.n + 1 }))
        .addEdge(START, "tick")
        .addConditionalEdges("tick", (s) => (s.n >= ticks ? END : "tick"))
        .compile({ checkpointer: saver });
      await graph.invoke({ doc: big }, { threadId: "big", recursionLimit: ticks + 1 });
      expect((await graph.getState({ threadId: "big" })).values.doc).toBe(big);
      return (await saver.storedBytes("big")) as number;
    };
    const few = await run(10);
    const many = await run(50);
    expect(few).toBeGreaterThan(20_000);
    // 40 more steps that leave `doc` alone cost a small checkpoint each, not another copy of `doc`.
    expect((many - few) / 40).toBeLessThan(1_000);
  });
});
