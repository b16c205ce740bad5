export { classifyDifficultyDetailed, type DifficultyResult } from "./agent/difficulty.js";
export { createOfflineTutorModel } from "./agent/offline-tutor-model.js";
export {
  getAdaptivePrompt,
  SYSTEM_PROMPT_BASIC,
  SYSTEM_PROMPT_COT,
  SYSTEM_PROMPT_INTERMEDIATE,
  TEST_EVALUATION_PROMPT,
  TEST_QUERY_GENERATION_PROMPT,
  TEST_QUESTION_GENERATION_PROMPT,
} from "./agent/prompts.js";
export {
  createThinkNode,
  MAX_TOOL_ROUNDS,
  parseCotResponse,
  shouldContinue,
  type ThinkNodeOptions,
} from "./agent/think-node.js";
export { createGetGuiaNode, createRagSearchNode, formatChunks, RAG_TIMEOUT_MESSAGE } from "./agent/tool-nodes.js";
export { createTutorTools, DEFAULT_TOP_K, type TutorTools } from "./agent/tutor-tools.js";
export { type ChatResponse, toChatResponse } from "./chat-response.js";
export { COURSE_PASSAGES, type CoursePassage, SUBJECTS, type Subject, subjectName } from "./corpus/course-corpus.js";
export {
  DEFAULT_DB_PATH,
  GraphAgent,
  type GraphAgentOptions,
  graphAgentOptionsFromEnv,
  openDatabase,
  openTutorDeps,
  type TutorDeps,
} from "./graph-agent.js";
export { GUIDE_SECTIONS, type GuideSection, SAMPLE_GUIDES, type TeachingGuide } from "./guides/guide-data.js";
export { type GuideLookup, GuideStore, sectionKey } from "./guides/guide-store.js";
export { createTutorApp } from "./http-app.js";
export { createTutorLlm, type LlmProvider, type LlmSettings, llmSettingsFromEnv } from "./llm-provider.js";
export { main, startTutorServer, type TutorServer } from "./main.js";
export { LocalRetriever, passageMetadata } from "./retrieval/local-retriever.js";
export { RemoteRetriever, type RemoteRetrieverOptions } from "./retrieval/remote-retriever.js";
export {
  RagTimeoutError,
  type RetrievedChunk,
  type Retriever,
  type SearchRequest,
  type SearchResponse,
} from "./retrieval/retriever.js";
export { buildGraph, buildRoutes } from "./server-entry.js";
export {
  type ContextChunk,
  type DifficultyLevel,
  type MultipleChoiceTest,
  type SubjectState,
  subjectStateSchema,
  type TestSessionState,
  testSessionStateSchema,
} from "./state.js";
export { answerLetter, type Evaluation, evaluateOffline, formatQuestion } from "./test-session/answer-evaluation.js";
export { offlineQuestions } from "./test-session/question-generation.js";
export {
  createTestSubgraph,
  type InterruptInfo,
  type TestSubgraphOptions,
  testRouter,
} from "./test-session/test-graph.js";
export { buildTutorGraph, type TutorGraph, type TutorGraphDeps } from "./tutor-graph.js";
export { inProcessTurns, serverTurns, type TurnEnd, type TurnRunner, type TutorTurn } from "./tutor-turns.js";
