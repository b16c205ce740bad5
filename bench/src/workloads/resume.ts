import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { CheckpointSaver } from "@trellis/checkpoint";
import { Command, channel, END, interrupt, START, StateGraph } from "@trellis/core";
import { floorStore } from "../floor-store.js";
import { langGraphApi, langGraphApiSaver } from "../langgraph-api.js";
import { trellisSaver } from "../savers.js";
import { type Impl, type MakeContext, type Runtime, type SaverKind, saverLabel, type Workload } from "../workload.js";

/**
 * (e) 200 threads, one after another: each is started, pauses in `interrupt()`, and is resumed with an
 * answer. Measures the cost of loading and storing a thread around a human-in-the-loop pause.
 */
export function resumeWorkload(saver: SaverKind): Workload {
  return {
    id: `e-resume/${saver}`,
    title: `(e) 200 threads start → interrupt → resume, ${saverLabel(saver)}`,
    group: "e",
    saver,
    runs: saver === "memory" ? { full: 10, quick: 5 } : { full: 7, quick: 3 },
    warmup: { full: 1, quick: 1 },
    units: { count: 200, name: "thread" },
    make: (runtime, ctx) => makeResume(runtime, saver, ctx),
    digest: (state) => state,
    compat: true,
  };
}

/**
 * (e)'s Trellis graph, not compiled: `ask` pauses in `interrupt()` for an answer, `finish` marks the
 * ticket done.
 *
 * @example
 * const graph = resumeGraph().compile({ checkpointer: saver });
 */
export function resumeGraph() {
  return new StateGraph({
    question: channel.value(""),
    answer: channel.value(""),
    done: channel.value(false),
  })
    .addNode("ask", (s) => ({ answer: interrupt<string>({ question: s.question }) }))
    .addNode("finish", () => ({ done: true }))
    .addEdge(START, "ask")
    .addEdge("ask", "finish")
    .addEdge("finish", END);
}

interface Ticket {
  question: string;
  answer: string;
  done: boolean;
}

async function makeResume(runtime: Runtime, saverKind: SaverKind, ctx: MakeContext): Promise<Impl> {
  const threads = ctx.tiny ? 3 : 200;
  const ids = Array.from({ length: threads }, (_, i) => `thread-${i}`);
  if (runtime === "trellis") {
    const builder = resumeGraph();
    return {
      async trial() {
        const handle = trellisSaver(saverKind, ctx.tmpDir);
        const graph = builder.compile({ checkpointer: handle.saver as CheckpointSaver });
        return {
          async run() {
            const out: Ticket[] = [];
            for (const [i, threadId] of ids.entries()) {
              const paused = await graph.invoke({ question: `q${i}` }, { threadId });
              if (!paused.__interrupt__) throw new Error("expected a pause");
              out.push(await graph.invoke(new Command({ resume: `a${i}` }), { threadId }));
            }
            return out;
          },
          storedBytes: () => handle.bytes(ids),
          dispose: () => handle.dispose(),
        };
      },
    };
  }
  if (runtime === "langgraph" || runtime === "compat") {
    const {
      Annotation,
      END: LG_END,
      START: LG_START,
      Command: LgCommand,
      StateGraph: LgStateGraph,
      interrupt: lgInterrupt,
    } = langGraphApi(runtime);
    const State = Annotation.Root({
      question: Annotation<string>,
      answer: Annotation<string>,
      done: Annotation<boolean>,
    });
    const builder = new LgStateGraph(State)
      .addNode("ask", (s) => ({ answer: lgInterrupt<{ question: string }, string>({ question: s.question }) }))
      .addNode("finish", () => ({ done: true }))
      .addEdge(LG_START, "ask")
      .addEdge("ask", "finish")
      .addEdge("finish", LG_END);
    return {
      async trial() {
        const handle = await langGraphApiSaver(runtime, saverKind, ctx.tmpDir, ids);
        const graph = builder.compile({ checkpointer: handle.saver as BaseCheckpointSaver });
        return {
          async run() {
            const out: Ticket[] = [];
            for (const [i, threadId] of ids.entries()) {
              const config = { configurable: { thread_id: threadId } };
              const paused = await graph.invoke({ question: `q${i}` }, config);
              if (!("__interrupt__" in paused)) throw new Error("expected a pause");
              out.push((await graph.invoke(new LgCommand({ resume: `a${i}` }), config)) as Ticket);
            }
            return out;
          },
          storedBytes: () => handle.bytes(),
          dispose: () => handle.dispose(),
        };
      },
    };
  }
  const ask = async (s: { question: string }) => ({ pause: { question: s.question } });
  const finish = async () => ({ done: true });
  return {
    async trial() {
      const store = floorStore(saverKind, ctx.tmpDir);
      return {
        async run() {
          const out: Ticket[] = [];
          for (const [i, threadId] of ids.entries()) {
            const start = { question: `q${i}`, answer: "", done: false };
            store.save(threadId, { ...start, ...(await ask(start)) });
            const loaded = store.load(threadId) as unknown as Ticket;
            const resumed = { question: loaded.question, answer: `a${i}`, done: false };
            const update = await finish();
            const final = { ...resumed, ...update };
            store.save(threadId, { answer: final.answer, done: final.done, pause: null });
            out.push(final);
          }
          return out;
        },
        storedBytes: () => store.bytes(),
        dispose: () => store.dispose(),
      };
    },
  };
}
