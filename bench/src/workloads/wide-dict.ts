import { Annotation, END as LG_END, START as LG_START, StateGraph as LgStateGraph } from "@langchain/langgraph";
import { type AnyChannel, channel, END, START, StateGraph } from "@trellis/core";
import { floorStore } from "../floor-store.js";
import { langGraphSaver, trellisSaver } from "../savers.js";
import {
  type Impl,
  type MakeContext,
  prng,
  type Runtime,
  type SaverKind,
  saverLabel,
  type Workload,
} from "../workload.js";

/**
 * (g) A port of LangGraph's `wide_dict` benchmark: a 6-node graph with a join, 14 keys with assorted
 * reducers, looping until `messages` holds more than `n` items. The input is one large nested dict (25
 * keys × 300 entries, ~2.4 MB as JSON) that the nodes pass along by reference into lists and dicts, so
 * a runtime that walks, copies or serializes values pays for it many times over. With a saver, every
 * step's checkpoint stores what changed.
 */
export function wideDictWorkload(saver: SaverKind): Workload {
  return {
    id: `g-wide-dict/${saver}`,
    title: `(g) wide_dict, 25 keys × 300 entries${saver === "none" ? "" : `, ${saverLabel(saver)}, 2 rounds`}`,
    group: "g",
    saver,
    // With a saver LangGraph.js takes seconds per run.
    runs: saver === "none" ? { full: 10, quick: 5 } : { full: 5, quick: 3 },
    warmup: { full: saver === "none" ? 2 : 1, quick: 1 },
    make: (runtime, ctx) => makeWideDict(runtime, saver, ctx),
    digest: digestWideDict,
  };
}

const LIST_FIELDS = new Set([
  "messages",
  "trigger_events",
  "categorizations",
  "responses",
  "memory_docs",
  "relevant_rules",
]);
const DICT_FIELDS = new Set([
  "user_info",
  "crm_info",
  "slack_participants",
  "notified_assignees",
  "autoresponse",
  "issue",
]);

type Dict = Record<string, unknown>;
type Reducer = (current: unknown, update: unknown) => unknown;

/** Every key: its reducer (or none: last value wins) and its default, as in the Python original. */
const KEYS: Record<string, { reducer?: Reducer; initial: () => unknown }> = {
  messages: { reducer: (a, b) => (a as unknown[]).concat(b as unknown[]), initial: () => [] },
  trigger_events: { reducer: (a, b) => (a as unknown[]).concat(b as unknown[]), initial: () => [] },
  primary_issue_medium: { reducer: (x, y) => y || x, initial: () => null },
  autoresponse: { reducer: (_x, y) => y, initial: () => null },
  issue: { reducer: (x, y) => (y ? y : x), initial: () => null },
  relevant_rules: { initial: () => null },
  memory_docs: { initial: () => null },
  categorizations: { reducer: (a, b) => (a as unknown[]).concat(b as unknown[]), initial: () => [] },
  responses: { reducer: (a, b) => (a as unknown[]).concat(b as unknown[]), initial: () => [] },
  user_info: { reducer: (x, y) => (y !== null && y !== undefined ? y : x), initial: () => null },
  crm_info: { reducer: (x, y) => (y !== null && y !== undefined ? y : x), initial: () => null },
  email_thread_id: { reducer: (x, y) => (y !== null && y !== undefined ? y : x), initial: () => null },
  slack_participants: { reducer: (x, y) => ({ ...(x as Dict), ...(y as Dict) }), initial: () => ({}) },
  bot_id: { initial: () => null },
  notified_assignees: { reducer: (x, y) => ({ ...(x as Dict), ...(y as Dict) }), initial: () => ({}) },
};

/** The nodes: which key each reads and which keys it writes. */
const NODES: Record<string, { read: string; write: string[] }> = {
  one: { read: "messages", write: ["trigger_events", "primary_issue_medium"] },
  two: { read: "trigger_events", write: ["autoresponse", "issue"] },
  three: { read: "autoresponse", write: ["relevant_rules"] },
  four: { read: "trigger_events", write: ["categorizations", "responses", "memory_docs"] },
  five: {
    read: "categorizations",
    write: ["user_info", "crm_info", "email_thread_id", "slack_participants", "bot_id", "notified_assignees"],
  },
  six: { read: "responses", write: ["messages"] },
};

/**
 * With a saver the loop stops at 5 messages (2 rounds) instead of 25 (4 rounds): each round multiplies
 * the references to the 2.4 MB dict that the written lists hold, and every one is serialized when it is
 * stored (LangGraph.js takes minutes per run at 25).
 */
function sizes(tiny: boolean, saver: SaverKind) {
  if (tiny) return { n: 5, outer: 3, inner: 4 };
  return { n: saver === "none" ? 25 : 5, outer: 25, inner: 300 };
}

function makeInput(outer: number, inner: number): Dict {
  const leaf = () => Array.from({ length: 5 }, () => ["hi?".repeat(10), true, 1, 6327816386138, null]).flat();
  const big: Dict = {};
  for (let i = 0; i < outer; i++) {
    const entries: Dict = {};
    for (let j = 0; j < inner; j++) entries[String(j).repeat(10)] = leaf();
    big[String(i).repeat(10)] = entries;
  }
  return { messages: [big] };
}

/** The Python `read_write`: passes the value it reads on into lists and dicts, or writes a random string. */
function readWrite(read: string, write: readonly string[], state: Dict, random: () => number, n: number): Dict {
  let val = state[read];
  if (typeof val === "string") val = { [val]: val };
  const single = Array.isArray(val) ? val[val.length - 1] : val;
  const list = Array.isArray(val) ? val : [val];
  const out: Dict = {};
  for (const key of write) {
    if (LIST_FIELDS.has(key)) out[key] = list;
    else if (DICT_FIELDS.has(key)) out[key] = single;
    else {
      let s = "";
      for (let i = 0; i < n; i++) s += "abcdefghijklmnopqrstuvwxyz"[Math.floor(random() * 26)];
      out[key] = s;
    }
  }
  return out;
}

async function makeWideDict(runtime: Runtime, saverKind: SaverKind, ctx: MakeContext): Promise<Impl> {
  const { n, outer, inner } = sizes(ctx.tiny, saverKind);
  const input = makeInput(outer, inner);
  const done = (s: Dict) => (s.messages as unknown[]).length > n;
  if (runtime === "trellis") {
    return {
      async trial() {
        const handle = trellisSaver(saverKind, ctx.tmpDir);
        const random = prng(7);
        const schema: Record<string, AnyChannel> = {};
        for (const [key, spec] of Object.entries(KEYS)) {
          schema[key] = spec.reducer ? channel.reduce(spec.reducer, spec.initial) : channel.value(spec.initial);
        }
        const builder = new StateGraph(schema);
        for (const [name, { read, write }] of Object.entries(NODES)) {
          builder.addNode(name, (s) => readWrite(read, write, s, random, n));
        }
        const graph = builder
          .addEdge(START, "one")
          .addEdge("one", "two")
          .addEdge("two", "three")
          .addEdge("two", "four")
          .addEdge(["three", "four"], "five")
          .addEdge("five", "six")
          .addConditionalEdges("six", (s) => (done(s) ? END : "one"))
          .compile(handle.saver ? { checkpointer: handle.saver } : {});
        return {
          run: () => graph.invoke(input, { threadId: "wide", recursionLimit: 1000 }),
          storedBytes: () => handle.bytes(["wide"]),
          dispose: () => handle.dispose(),
        };
      },
    };
  }
  if (runtime === "langgraph") {
    return {
      async trial() {
        const handle = await langGraphSaver(saverKind, ctx.tmpDir);
        const random = prng(7);
        const spec: Record<string, unknown> = {};
        for (const [key, { reducer, initial }] of Object.entries(KEYS)) {
          spec[key] = reducer ? Annotation<unknown>({ reducer, default: initial }) : Annotation<unknown>;
        }
        const State = Annotation.Root(spec as { messages: ReturnType<typeof Annotation<unknown>> });
        // Keys and node names built from tables have no literal types; LangGraph's builder needs them.
        // biome-ignore lint/suspicious/noExplicitAny: see above.
        const builder: any = new LgStateGraph(State);
        for (const [name, { read, write }] of Object.entries(NODES)) {
          builder.addNode(name, (s: Dict) => readWrite(read, write, s, random, n));
        }
        const graph = builder
          .addEdge(LG_START, "one")
          .addEdge("one", "two")
          .addEdge("two", "three")
          .addEdge("two", "four")
          .addEdge(["three", "four"], "five")
          .addEdge("five", "six")
          .addConditionalEdges("six", (s: Dict) => (done(s) ? LG_END : "one"))
          .compile(handle.saver ? { checkpointer: handle.saver } : {});
        const config = { configurable: { thread_id: "wide" }, recursionLimit: 1000 };
        return {
          run: () => graph.invoke(input, config),
          storedBytes: () => handle.bytes(),
          dispose: () => handle.dispose(),
        };
      },
    };
  }
  return {
    async trial() {
      const store = floorStore(saverKind, ctx.tmpDir);
      const random = prng(7);
      const node = (name: string) => {
        const { read, write } = NODES[name] as { read: string; write: string[] };
        return async (s: Dict) => readWrite(read, write, s, random, n);
      };
      const apply = (state: Dict, updates: Dict[]): Dict => {
        const next = { ...state };
        for (const update of updates) {
          for (const [key, value] of Object.entries(update)) {
            const reducer = KEYS[key]?.reducer;
            next[key] = reducer ? reducer(next[key], value) : value;
          }
          store.save("wide", update);
        }
        return next;
      };
      return {
        async run() {
          let state: Dict = {};
          for (const [key, { initial }] of Object.entries(KEYS)) state[key] = initial();
          state = apply(state, [input]);
          do {
            state = apply(state, [await node("one")(state)]);
            state = apply(state, [await node("two")(state)]);
            state = apply(state, await Promise.all([node("three")(state), node("four")(state)]));
            state = apply(state, [await node("five")(state)]);
            state = apply(state, [await node("six")(state)]);
          } while (!done(state));
          return state;
        },
        storedBytes: () => store.bytes(),
        dispose: () => store.dispose(),
      };
    },
  };
}

/** Lists by length, dicts by their key count, strings as they are; missing and null alike. */
function digestWideDict(state: unknown): unknown {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(KEYS)) {
    const value = (state as Dict)[key];
    if (value === undefined || value === null) out[key] = null;
    else if (Array.isArray(value)) out[key] = { list: value.length };
    else if (typeof value === "object") out[key] = { dict: Object.keys(value).length };
    else out[key] = value;
  }
  return out;
}
