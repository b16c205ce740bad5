import { describe, expect, it } from "vitest";
import { Command, channel, END, interrupt, MemorySaver, Send, START, StateGraph } from "../index.js";

const QUESTIONS = ["2+2?", "Capital of France?", "H2O is?", "Largest planet?", "Speed of light?"];

function quizGraph(saver: MemorySaver, presented: string[]) {
  const quiz = new StateGraph({
    current: channel.value(0),
    answers: channel.append<{ question: string; answer: string }>(),
  })
    .addNode("present_question", (s) => {
      presented.push(QUESTIONS[s.current] as string);
      return {};
    })
    .addNode("answer_question", (s) => {
      const answer = interrupt<string>({
        action: "answer_question",
        question_num: s.current + 1,
        total_questions: QUESTIONS.length,
        question_text: QUESTIONS[s.current],
      });
      return { answers: [{ question: QUESTIONS[s.current] as string, answer }], current: s.current + 1 };
    })
    .addEdge(START, "present_question")
    .addEdge("present_question", "answer_question")
    .addConditionalEdges("answer_question", (s) => (s.current < QUESTIONS.length ? "next" : "done"), {
      next: "present_question",
      done: END,
    })
    .compile();
  return new StateGraph({
    topic: channel.value(""),
    answers: channel.append<{ question: string; answer: string }>(),
    summary: channel.value(""),
  })
    .addNode("test_session", quiz)
    .addNode("finalize", (s) => ({ summary: `${s.answers.length} answers on ${s.topic}` }))
    .addEdge(START, "test_session")
    .addEdge("test_session", "finalize")
    .compile({ checkpointer: saver });
}

describe("subgraphs", () => {
  it("runs a 5-question quiz subgraph, one resume per question", async () => {
    const saver = new MemorySaver();
    const presented: string[] = [];
    const graph = quizGraph(saver, presented);
    const config = { threadId: "quiz" };
    let result = await graph.invoke({ topic: "science" }, config);
    for (let i = 0; i < QUESTIONS.length; i++) {
      const pending = result.__interrupt__;
      expect(pending).toHaveLength(1);
      expect(pending?.[0]?.value).toMatchObject({ question_num: i + 1, question_text: QUESTIONS[i] });
      expect(pending?.[0]?.namespace).toMatch(/^test_session:/);
      const snapshot = await graph.getState(config, { subgraphs: true });
      expect(snapshot.next).toEqual(["test_session"]);
      expect(snapshot.tasks[0]?.state?.values).toMatchObject({ current: i });
      result = await graph.invoke(new Command({ resume: `answer ${i + 1}` }), config);
    }
    expect(result.__interrupt__).toBeUndefined();
    expect(result.answers.map((a) => a.answer)).toEqual(["answer 1", "answer 2", "answer 3", "answer 4", "answer 5"]);
    expect(result.summary).toBe("5 answers on science");
    // Each question was presented exactly once: finished subgraph nodes never ran again.
    expect(presented).toEqual(QUESTIONS);
  });

  it("resumes a subgraph interrupt with a map keyed by the interrupt id", async () => {
    const saver = new MemorySaver();
    const graph = quizGraph(saver, []);
    const config = { threadId: "quiz-map" };
    const first = await graph.invoke({ topic: "x" }, config);
    const id = first.__interrupt__?.[0]?.id as string;
    const second = await graph.invoke(new Command({ resume: { [id]: "four" } }), config);
    expect(second.__interrupt__?.[0]?.value).toMatchObject({ question_num: 2 });
  });

  it("calls a subgraph from inside a node with its own input", async () => {
    const inner = new StateGraph({ text: channel.value(""), words: channel.value(0) })
      .addNode("count", (s) => ({ words: s.text.split(/\s+/).filter(Boolean).length }))
      .addEdge(START, "count")
      .compile();
    const outer = new StateGraph({ docs: channel.value<string[]>([]), total: channel.value(0) })
      .addNode("sum", async (s) => {
        let total = 0;
        for (const text of s.docs) total += (await inner.invoke({ text })).words;
        return { total };
      })
      .addEdge(START, "sum")
      .compile({ checkpointer: new MemorySaver() });
    const out = await outer.invoke({ docs: ["a b c", "d e"] }, { threadId: "nested" });
    expect(out.total).toBe(5);
  });
});

describe("handoffs with Command.PARENT", () => {
  function agents(saver: MemorySaver, visits: string[]) {
    const schema = {
      messages: channel.append<string>(),
      currentAgent: channel.value("general"),
    };
    const general = new StateGraph(schema)
      .addNode("think", (s) => {
        visits.push("general");
        const last = s.messages[s.messages.length - 1] ?? "";
        if (last.includes("report")) {
          return new Command({
            goto: "reporting",
            graph: Command.PARENT,
            update: { currentAgent: "reporting", messages: ["general: handing off to reporting"] },
          });
        }
        return { messages: ["general: hello"] };
      })
      .addEdge(START, "think")
      .compile();
    const reporting = new StateGraph(schema)
      .addNode("write", (s) => {
        visits.push("reporting");
        return { messages: [`reporting: report #${s.messages.filter((m) => m.startsWith("user")).length}`] };
      })
      .addEdge(START, "write")
      .compile();
    return new StateGraph(schema)
      .addNode("general", general, { ends: ["reporting"] })
      .addNode("reporting", reporting)
      .addConditionalEdges(START, (s) => s.currentAgent, { general: "general", reporting: "reporting" })
      .addEdge("general", END)
      .addEdge("reporting", END)
      .compile({ checkpointer: saver });
  }

  it("moves control between agent subgraphs and routes the next input by the persisted agent", async () => {
    const saver = new MemorySaver();
    const visits: string[] = [];
    const graph = agents(saver, visits);
    const config = { threadId: "handoff" };
    const first = await graph.invoke({ messages: ["user: make a report"] }, config);
    expect(first.currentAgent).toBe("reporting");
    expect(first.messages).toEqual([
      "user: make a report",
      "general: handing off to reporting",
      "reporting: report #1",
    ]);
    expect(visits).toEqual(["general", "reporting"]);
    const second = await graph.invoke({ messages: ["user: and another"] }, config);
    expect(visits).toEqual(["general", "reporting", "reporting"]);
    expect(second.messages.at(-1)).toBe("reporting: report #2");
    expect(graph.getGraph().edges).toContainEqual({ source: "general", target: "reporting", conditional: true });
  });
});

describe("subgraph config", () => {
  it("nodes inside a subgraph see the parent run's thread id and configurable values", async () => {
    const seen: unknown[] = [];
    const inner = new StateGraph({ n: channel.value(0) })
      .addNode("look", (_s, ctx) => {
        seen.push([ctx.config.threadId, ctx.config.configurable?.user]);
        return {};
      })
      .addEdge(START, "look")
      .compile();
    const outer = new StateGraph({ n: channel.value(0) })
      .addNode("sub", inner)
      .addEdge(START, "sub")
      .compile({ checkpointer: new MemorySaver() });
    await outer.invoke({ n: 1 }, { threadId: "cfg", configurable: { user: "ada" } });
    expect(seen).toEqual([["cfg", "ada"]]);
  });
});

describe("subgraphs reached by Send", () => {
  it("get the packet's keys and keep their defaults for the rest", async () => {
    const worker = new StateGraph({ topic: channel.value(""), results: channel.append<string>() })
      .addNode("write", (s) => ({ results: [`about ${s.topic}`] }))
      .addEdge(START, "write")
      .compile();
    const parent = new StateGraph({ topic: channel.value(""), results: channel.append<string>() })
      .addNode("worker", worker)
      .addConditionalEdges(START, () => ["cats", "dogs"].map((topic) => new Send("worker", { topic })))
      .compile();
    expect((await parent.invoke({})).results).toEqual(["about cats", "about dogs"]);
  });
});
