/**
 * Property tests (fast-check):
 *  (a) a superstep's result does not depend on the order in which its parallel tasks finish;
 *  (b) a run paused and resumed at any interrupt ends in the same state as one answered in advance;
 *  (c) MemorySaver round-trips every checkpoint, with Date, Map, Set, BigInt and Uint8Array inside.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  Command,
  channel,
  type Durability,
  END,
  type Interrupt,
  interrupt,
  MemorySaver,
  Send,
  START,
  StateGraph,
} from "../index.js";

// ───────────────────────────── (a) order of task completion ─────────────────────────────

const fanSchema = {
  trail: channel.reduce((a: string, b: string) => `${a}${b};`, ""),
  log: channel.append<string>(),
  messages: channel.messages(),
  total: channel.reduce((a: number, b: number) => a * 3 + b, 1),
  owner: channel.value(""),
};

interface FanShape {
  /** branches[b][j]: delay of the j-th node of branch b. */
  branches: number[][];
  /** Delays of the Send packets the join fans out. */
  sends: number[];
}

/** START → k branches of chains → join (waits for all) → Send × m → worker. Every node waits `wait(d)`. */
function fanGraph(shape: FanShape, wait: (delay: number, name: string) => Promise<void>, saver?: MemorySaver) {
  let builder = new StateGraph(fanSchema);
  const lasts: string[] = [];
  shape.branches.forEach((chain, b) => {
    chain.forEach((delay, j) => {
      const name = `b${b}_${j}`;
      builder = builder.addNode(name, async () => {
        await wait(delay, name);
        return {
          trail: name,
          log: [name],
          messages: [
            { id: name, role: "assistant", content: name },
            { id: "shared", role: "assistant", content: `last writer ${name}` },
          ],
          total: b * 10 + j,
          ...(b === 0 && j === 0 ? { owner: name } : {}),
        };
      });
      builder = builder.addEdge(j === 0 ? START : `b${b}_${j - 1}`, name);
    });
    lasts.push(`b${b}_${chain.length - 1}`);
  });
  builder = builder
    .addNode("join", async () => {
      await wait(0, "join");
      return { trail: "join" };
    })
    .addEdge(lasts, "join")
    .addConditionalEdges("join", () => shape.sends.map((delay, i) => new Send("worker", { i, delay })), ["worker"])
    .addNode("worker", async (arg: { i: number; delay: number }) => {
      await wait(arg.delay, `worker${arg.i}`);
      return { trail: `w${arg.i}`, log: [`w${arg.i}`], total: arg.i };
    })
    .addEdge("worker", END);
  return builder.compile(saver ? { checkpointer: saver } : {});
}

const fanShape: fc.Arbitrary<FanShape> = fc.record({
  branches: fc.array(fc.array(fc.nat({ max: 30 }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
  sends: fc.array(fc.nat({ max: 30 }), { maxLength: 4 }),
});

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};
const input = { trail: ">", messages: [{ id: "shared", role: "user", content: "start" }] };

describe("(a) a superstep does not depend on the order its tasks finish", () => {
  it("random microtask delays give the same state as no delays", async () => {
    await fc.assert(
      fc.asyncProperty(fanShape, async (shape) => {
        const reference = await fanGraph(shape, async () => undefined).invoke(input);
        const delayed = await fanGraph(shape, (d) => ticks(d)).invoke(input);
        expect(delayed).toEqual(reference);
        // And the reference itself is what the plan says: branch tasks in order, then join, then workers.
        expect(reference.log.slice(-shape.sends.length || undefined)).toEqual(
          shape.sends.length ? shape.sends.map((_, i) => `w${i}`) : reference.log,
        );
        expect(reference.messages.find((m) => m.id === "shared")?.content).toMatch(/^last writer /);
      }),
      { numRuns: 150 },
    );
  });

  it("any completion order chosen by a scheduler gives the same state, with a checkpointer", async () => {
    await fc.assert(
      fc.asyncProperty(
        fanShape,
        fc.scheduler(),
        fc.constantFrom<Durability>("sync", "async", "exit"),
        async (shape, s, durability) => {
          const reference = await fanGraph(shape, async () => undefined).invoke(input);
          const saver = new MemorySaver();
          const graph = fanGraph(shape, (_d, name) => s.schedule(Promise.resolve(name)).then(() => undefined), saver);
          const run = graph.invoke(input, { threadId: "t", durability });
          await s.waitFor(run);
          const result = await run;
          expect(result).toEqual(reference);
          expect((await graph.getState({ threadId: "t" })).values).toEqual(reference);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("real timer delays give the same state", async () => {
    await fc.assert(
      fc.asyncProperty(fanShape, async (shape) => {
        const reference = await fanGraph(shape, async () => undefined).invoke(input);
        const sleep = (d: number) => new Promise<void>((r) => setTimeout(r, d % 4));
        expect(await fanGraph(shape, sleep).invoke(input)).toEqual(reference);
      }),
      { numRuns: 15 },
    );
  });
});

// ───────────────────── (b) paused and resumed = answered in advance ─────────────────────

interface AskShape {
  /** branches[b][j]: how many questions the j-th node of branch b asks (0–2). */
  branches: number[][];
  /** Questions each Send worker asks. */
  workers: number[];
  salt: string;
}

const askSchema = {
  log: channel.append<string>(),
  trail: channel.reduce((a: string, b: string) => `${a}${b};`, ""),
  last: channel.value(""),
};

const answerOf = (salt: string, node: string, i: number) => `${salt}:${node}#${i}`;

/**
 * START → branches of asking nodes → join → Send to workers. With `ask` live, each question is an
 * interrupt(); in advance, the answer is known and no interrupt happens.
 */
function askingGraph(
  shape: AskShape,
  mode: "live" | "advance",
  saver?: MemorySaver,
  breakpoints: { before?: string[]; after?: string[] } = {},
) {
  const ask = (node: string, i: number) =>
    mode === "live" ? interrupt<string>({ node, i }) : answerOf(shape.salt, node, i);
  const node = (name: string, asks: number) => () => {
    const got: string[] = [];
    for (let i = 0; i < asks; i++) got.push(ask(name, i));
    return { log: [`${name}=${got.join("+")}`], trail: name };
  };
  let builder = new StateGraph(askSchema);
  const lasts: string[] = [];
  shape.branches.forEach((chain, b) => {
    chain.forEach((asks, j) => {
      const name = `n${b}_${j}`;
      builder = builder.addNode(name, node(name, asks)).addEdge(j === 0 ? START : `n${b}_${j - 1}`, name);
    });
    lasts.push(`n${b}_${chain.length - 1}`);
  });
  builder = builder
    .addNode("join", (s) => ({ last: `joined after ${s.log.length}` }))
    .addEdge(lasts, "join")
    .addConditionalEdges("join", () => shape.workers.map((asks, i) => new Send("worker", { i, asks })), ["worker"])
    .addNode("worker", (arg: { i: number; asks: number }) => {
      const got: string[] = [];
      for (let k = 0; k < arg.asks; k++) got.push(ask(`worker${arg.i}`, k));
      return { log: [`worker${arg.i}=${got.join("+")}`] };
    })
    .addEdge("worker", END);
  return builder.compile({
    ...(saver ? { checkpointer: saver } : {}),
    ...(breakpoints.before ? { interruptBefore: breakpoints.before } : {}),
    ...(breakpoints.after ? { interruptAfter: breakpoints.after } : {}),
  });
}

const askShape: fc.Arbitrary<AskShape> = fc.record({
  branches: fc.array(fc.array(fc.nat({ max: 2 }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
  workers: fc.array(fc.nat({ max: 2 }), { maxLength: 3 }),
  salt: fc.string({ maxLength: 4 }),
});

const answerFor = (salt: string, i: Interrupt) => {
  const { node, i: index } = i.value as { node: string; i: number };
  return answerOf(salt, node, index);
};

describe("(b) a paused and resumed run ends like one answered in advance", () => {
  it("whatever subset of pending interrupts each resume answers, with restarts and breakpoints", async () => {
    await fc.assert(
      fc.asyncProperty(askShape, fc.gen(), async (shape, g) => {
        const reference = await askingGraph(shape, "advance").invoke({ log: ["in"] });
        const names = [...shape.branches.flatMap((chain, b) => chain.map((_, j) => `n${b}_${j}`)), "join", "worker"];
        const breakpoints = {
          before: g(fc.subarray, names, { maxLength: 2 }),
          after: g(fc.subarray, names, { maxLength: 2 }),
        };
        const saver = new MemorySaver();
        let graph = askingGraph(shape, "live", saver, breakpoints);
        const config = { configurable: { thread_id: "t" } };
        await graph.invoke({ log: ["in"] }, config);
        for (let guard = 0; ; guard++) {
          expect(guard).toBeLessThan(200);
          const state = await graph.getState(config);
          if (state.next.length === 0) break;
          if (g(fc.boolean)) graph = askingGraph(shape, "live", saver, breakpoints); // another process
          const pending = state.interrupts;
          if (pending.length === 0 || g(fc.integer, { min: 0, max: 9 }) === 0) {
            // A static breakpoint, or a plain continue while interrupts wait (they are asked again).
            await graph.invoke(null, config);
          } else if (pending.length === 1 && g(fc.boolean)) {
            await graph.invoke(new Command({ resume: answerFor(shape.salt, pending[0] as Interrupt) }), config);
          } else {
            const chosen = g(fc.subarray, pending, { minLength: 1 });
            const map = Object.fromEntries(chosen.map((i) => [i.id, answerFor(shape.salt, i)]));
            const result = await graph.invoke(new Command({ resume: map }), config);
            // Whatever was not answered is still pending, with the same ids.
            const left = new Set((result.__interrupt__ ?? []).map((i) => i.id));
            for (const i of pending) if (!map[i.id]) expect(left.has(i.id)).toBe(true);
          }
        }
        expect((await graph.getState(config)).values).toEqual(reference);
      }),
      { numRuns: 150 },
    );
  });
});

// ───────────────────────────── (c) MemorySaver round trips ─────────────────────────────

const { plain } = fc.letrec<{
  leaf: unknown;
  plain: unknown;
  list: unknown[];
  record: unknown;
  map: unknown;
  set: unknown;
}>((tie) => ({
  leaf: fc.oneof(
    fc.string({ unit: "binary", maxLength: 6 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.bigInt(),
    fc.date({ noInvalidDate: true }),
    fc.uint8Array({ maxLength: 6 }),
  ),
  plain: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("leaf"),
    tie("list"),
    tie("record"),
    tie("map"),
    tie("set"),
  ),
  list: fc.array(tie("plain"), { maxLength: 4 }),
  record: fc.dictionary(
    fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom("$trellis", "__proto__", "v", "constructor")),
    tie("plain"),
    { maxKeys: 4 },
  ),
  map: fc.array(fc.tuple(tie("plain"), tie("plain")), { maxLength: 3 }).map((entries) => new Map(entries)),
  set: fc.array(tie("plain"), { maxLength: 3 }).map((items) => new Set(items)),
}));

describe("(c) MemorySaver round-trips every checkpoint", () => {
  it("the corner cases fast-check found: -0, undefined in a Map, a Set or an object, object Map keys", async () => {
    const nullProto = Object.create(null) as Record<string, unknown>;
    nullProto.k = 1;
    const value = {
      zero: -0,
      list: [-0, 1],
      map: new Map<unknown, unknown>([
        ["k", undefined],
        [nullProto, 0],
        [{ toString: 1 }, "odd key"],
      ]),
      set: new Set([undefined, -1]),
      nested: { gone: undefined, kept: null },
      $trellis: "escaped",
    };
    const graph = new StateGraph({ v: channel.value<unknown>(null), u: channel.value<string>() })
      .addNode("w", () => ({ v: value, u: undefined }))
      .addEdge(START, "w")
      .compile({ checkpointer: new MemorySaver() });
    const live = await graph.invoke({ u: "set" }, { threadId: "corner" });
    const stored = (await graph.getState({ threadId: "corner" })).values;
    // (A null-prototype object comes back with Object.prototype; everything else is exact.)
    expect(stored).toEqual(live);
    expect(Object.is((stored.v as typeof value).zero, -0)).toBe(true);
    expect([...(stored.v as typeof value).map.values()]).toStrictEqual([undefined, 0, "odd key"]);
    expect([...(stored.v as typeof value).set]).toStrictEqual([undefined, -1]);
    expect("gone" in (stored.v as typeof value).nested).toBe(true);
    expect("u" in stored && stored.u === undefined).toBe(true);
  });

  it("every checkpoint of a run reads back the values written at that step", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(plain, { minLength: 1, maxLength: 6 }), async (values) => {
        const saver = new MemorySaver();
        const graph = new StateGraph({
          payload: channel.value<unknown>(null),
          items: channel.append<unknown>(),
          n: channel.value(0),
        })
          .addNode("emit", (s) => ({ payload: values[s.n], items: [values[s.n]], n: s.n + 1 }))
          .addEdge(START, "emit")
          .addConditionalEdges("emit", (s) => (s.n >= values.length ? END : "emit"))
          .compile({ checkpointer: saver, snapshotEvery: 3 });
        await graph.invoke({}, { threadId: "rt", recursionLimit: values.length + 1 });
        let seen = 0;
        for await (const snapshot of graph.getStateHistory({ threadId: "rt" })) {
          const n = snapshot.values.n;
          if (n === 0) continue;
          seen++;
          expect(snapshot.values.payload).toEqual(values[n - 1]);
          expect(snapshot.values.items).toEqual(values.slice(0, n));
        }
        expect(seen).toBe(values.length);
      }),
      { numRuns: 200 },
    );
  });

  it("interrupt values and resume values round-trip too", async () => {
    await fc.assert(
      fc.asyncProperty(plain, plain, async (question, answer) => {
        const saver = new MemorySaver();
        let received: unknown;
        const graph = new StateGraph({ got: channel.value<unknown>(null) })
          .addNode("ask", () => {
            received = interrupt(question);
            return { got: received };
          })
          .addEdge(START, "ask")
          .compile({ checkpointer: saver });
        await graph.invoke({}, { threadId: "q" });
        expect((await graph.getState({ threadId: "q" })).interrupts[0]?.value).toEqual(question);
        const fresh = new StateGraph({ got: channel.value<unknown>(null) })
          .addNode("ask", () => ({ got: interrupt(question) }))
          .addEdge(START, "ask")
          .compile({ checkpointer: saver });
        await fresh.invoke(
          new Command({ resume: { [(await fresh.getState({ threadId: "q" })).interrupts[0]?.id as string]: answer } }),
          {
            threadId: "q",
          },
        );
        expect((await graph.getState({ threadId: "q" })).values.got).toEqual(answer);
      }),
      { numRuns: 150 },
    );
  });
});
