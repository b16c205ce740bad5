import type { CheckpointSaver } from "@trellis/checkpoint";
import { type CompiledGraph, END, StateGraph } from "@trellis/core";
import type { ChatModel } from "@trellis/models";
import { createOfflineTutorModel } from "./agent/offline-tutor-model.js";
import { createThinkNode, shouldContinue } from "./agent/think-node.js";
import { createGetGuiaNode, createRagSearchNode } from "./agent/tool-nodes.js";
import { createTutorTools } from "./agent/tutor-tools.js";
import type { GuideStore } from "./guides/guide-store.js";
import type { LocalRetriever } from "./retrieval/local-retriever.js";
import { registerRetrieval } from "./retrieval/monitored-retriever.js";
import type { Retriever } from "./retrieval/retriever.js";
import { subjectStateSchema } from "./state.js";
import { createTestSubgraph } from "./test-session/test-graph.js";

/**
 * What the tutor graph is built from.
 *
 * @example
 * const deps: TutorGraphDeps = { llm: undefined, retriever: corpus, corpus, guides, checkpointer: saver };
 */
export interface TutorGraphDeps {
  /** A provider model (vLLM, Gemini, Mistral…); undefined runs the deterministic offline tutor. */
  llm: ChatModel | undefined;
  /** Where `rag_search` and the test's proactive RAG search: the local index or the remote service. */
  retriever: Retriever;
  /** The shipped corpus (offline question generation). */
  corpus: LocalRetriever;
  guides: GuideStore;
  checkpointer?: CheckpointSaver;
  /** Sampling temperature of every model call (the seed's default is 0.1). */
  temperature?: number;
}

/**
 * The compiled main graph of the tutor.
 *
 * @example
 * const graph: TutorGraph = buildTutorGraph(deps);
 */
export type TutorGraph = CompiledGraph<typeof subjectStateSchema>;

/**
 * The seed's main graph: `agent` (think) routes on the first tool call to `rag_search`, `get_guia` or
 * the `test_session` subgraph (for `generate_test`), or ends; the tool nodes return to `agent`, and the
 * test session ends the turn.
 *
 * Paused-input policy `reject`: while a test question waits, a new message is refused with
 * `THREAD_PAUSED` (409 over HTTP) carrying the question — through `/chat`, the Agent Server API or any
 * other door — and nothing is written; the question is answered with a resume (`/resume_chat`,
 * `command: { resume }`). The seed keeps conversation (`/chat`) and answers (`/resume_chat`) apart, so
 * a message sent mid-test is neither taken as an answer nor allowed to drop the test unseen.
 *
 * @example
 * const graph = buildTutorGraph({ llm: undefined, retriever, corpus: retriever, guides, checkpointer });
 * await graph.invoke({ messages: [userMessage("¿Qué es un contenedor?")], asignatura: "iv", context: [] }, { threadId: "t1" });
 */
export function buildTutorGraph(deps: TutorGraphDeps): TutorGraph {
  const tools = createTutorTools({ retriever: deps.retriever, guides: deps.guides });
  const model = deps.llm ?? createOfflineTutorModel();
  const temperature = deps.temperature !== undefined ? { temperature: deps.temperature } : {};
  const testSubgraph = createTestSubgraph({
    llm: deps.llm,
    retriever: deps.retriever,
    corpus: deps.corpus,
    ...temperature,
  });
  // a caller gives the conversation, the typed keys a student may set, and clears `context` each turn
  // (the seed's input); the test, its answers, scores and the model's thinking are the graph's own
  const graph = new StateGraph(subjectStateSchema, {
    name: "tutor",
    input: [
      "messages",
      "context",
      "asignatura",
      "topic",
      "num_questions",
      "difficulty",
      "query_difficulty",
      "current_question_index",
    ],
  })
    .addNode("agent", createThinkNode({ model, tools: tools.all, ...temperature }))
    .addNode("rag_search", createRagSearchNode(tools))
    .addNode("get_guia", createGetGuiaNode(tools))
    .addNode("test_session", testSubgraph)
    .setEntryPoint("agent")
    .addConditionalEdges("agent", shouldContinue, {
      rag_search: "rag_search",
      get_guia: "get_guia",
      generate_test: "test_session",
      [END]: END,
    })
    .addEdge("rag_search", "agent")
    .addEdge("get_guia", "agent")
    .addEdge("test_session", END)
    .compile({ onInputWhilePaused: "reject", ...(deps.checkpointer ? { checkpointer: deps.checkpointer } : {}) });
  registerRetrieval(graph, deps.retriever);
  return graph;
}
