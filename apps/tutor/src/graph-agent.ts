import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { type CheckpointSaver, TrellisError } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import type { InvokeResult } from "@trellis/core";
import { type ChatModel, type Message, userMessage } from "@trellis/models";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { type ChatResponse, toChatResponse } from "./chat-response.js";
import { GuideStore } from "./guides/guide-store.js";
import { createTutorLlm, type LlmSettings, llmSettingsFromEnv } from "./llm-provider.js";
import { LocalRetriever } from "./retrieval/local-retriever.js";
import { MonitoredRetriever, type RetrievalHealth, retrievalOf } from "./retrieval/monitored-retriever.js";
import { RemoteRetriever } from "./retrieval/remote-retriever.js";
import type { subjectStateSchema } from "./state.js";
import type { InterruptInfo } from "./test-session/test-graph.js";
import { buildTutorGraph, type TutorGraph } from "./tutor-graph.js";
import { inProcessTurns, questionMismatch, type TurnEnd, type TurnRunner, type TutorTurn } from "./tutor-turns.js";

/**
 * Default SQLite file of the app (checkpoints and teaching guides), relative to the working directory.
 *
 * @example
 * const path = process.env.TUTOR_DB_PATH ?? DEFAULT_DB_PATH;
 */
export const DEFAULT_DB_PATH = ".trellis/tutor.sqlite";

/**
 * Options of {@link GraphAgent.create}: the seed's model settings, plus where data lives.
 *
 * @example
 * const agent = GraphAgent.create({ llmProvider: "offline", dbPath: "./tutor.sqlite" });
 */
export interface GraphAgentOptions extends LlmSettings {
  /** The SQLite file holding checkpoints and teaching guides. Default {@link DEFAULT_DB_PATH}. */
  dbPath?: string;
  /** Root URL of the seed's RAG service; unset uses the embedded index. */
  ragUrl?: string;
  /** Timeout of one RAG request. Default 30,000 ms. */
  ragTimeoutMs?: number;
  /** A model to use instead of the one the settings describe (`null` forces the offline tutor). */
  llm?: ChatModel | null;
}

/**
 * What {@link openTutorDeps} opens.
 *
 * @example
 * const { db, guides } = openTutorDeps({ dbPath: ":memory:" }) satisfies TutorDeps;
 */
export interface TutorDeps {
  llm: ChatModel | undefined;
  corpus: LocalRetriever;
  /** Counts its searches and failures for `/health`, and logs every failure. */
  retriever: MonitoredRetriever;
  /** The app's SQLite database (teaching guides; checkpoints too when the agent owns the saver). */
  db: Database;
  guides: GuideStore;
  temperature: number;
}

/**
 * The dependencies of a tutor graph, opened from options: model, retrievers, the database and its
 * guide store.
 *
 * @example
 * const deps = openTutorDeps({ dbPath: ":memory:" });
 * const graph = buildTutorGraph({ ...deps, checkpointer: new SqliteSaver({ database: deps.db }) });
 */
export function openTutorDeps(options: GraphAgentOptions): TutorDeps {
  const llm = options.llm === undefined ? createTutorLlm(options) : (options.llm ?? undefined);
  const corpus = new LocalRetriever();
  const retriever = new MonitoredRetriever(
    options.ragUrl
      ? new RemoteRetriever({
          url: options.ragUrl,
          ...(options.ragTimeoutMs ? { timeoutMs: options.ragTimeoutMs } : {}),
        })
      : corpus,
  );
  const db = openDatabase(options.dbPath ?? DEFAULT_DB_PATH);
  const guides = new GuideStore(db);
  const temperature = options.temperature ?? 0.1;
  return { llm, corpus, retriever, db, guides, temperature };
}

/**
 * Reads {@link GraphAgentOptions} from the environment: the model settings of `llmSettingsFromEnv`,
 * plus `TUTOR_DB_PATH`, `RAG_URL` and `RAG_TIMEOUT_MS`.
 *
 * @example
 * const agent = GraphAgent.create(graphAgentOptionsFromEnv(process.env));
 */
export function graphAgentOptionsFromEnv(env: Record<string, string | undefined> = process.env): GraphAgentOptions {
  const options: GraphAgentOptions = llmSettingsFromEnv(env);
  if (env.TUTOR_DB_PATH) options.dbPath = env.TUTOR_DB_PATH;
  if (env.RAG_URL) options.ragUrl = env.RAG_URL;
  if (env.RAG_TIMEOUT_MS) {
    const ms = Number(env.RAG_TIMEOUT_MS);
    if (!Number.isFinite(ms) || ms <= 0) {
      throw new TrellisError(
        "INVALID_CONFIG",
        `RAG_TIMEOUT_MS must be a positive number; got "${env.RAG_TIMEOUT_MS}".`,
      );
    }
    options.ragTimeoutMs = ms;
  }
  return options;
}

/**
 * The seed's `GraphAgent`: one instance is created at start-up and serves every request, so every
 * request reaches the same graph and checkpointer. `callAgent` starts a turn (state restored by thread
 * id), `callAgentResume` answers the pending test question.
 *
 * Turns run through a {@link TurnRunner}: the graph in this process by default (the standalone tutor),
 * the Trellis server's run service when the server mounts the routes (`serverTurns`). Either way the
 * graph's paused-input policy (`reject`) decides what a new message does while a test question waits.
 *
 * @example
 * const agent = GraphAgent.create({ dbPath: "./tutor.sqlite" });
 * const result = await agent.callAgent("Hazme un test de 5 preguntas sobre contenedores", "alumno-1", "iv");
 * result.__interrupt__?.[0]?.value; // { action: "answer_question", question_num: 1, … }
 * await agent.callAgentResume("alumno-1", "B");
 */
export class GraphAgent {
  readonly graph: TutorGraph;
  /** `"offline"` or the provider of the model. */
  readonly provider: string;
  readonly #turns: TurnRunner;
  readonly #user: string | null;
  readonly #onClose: (() => void) | undefined;
  readonly #retrieval: MonitoredRetriever | undefined;

  /**
   * Wraps a built graph (with its checkpointer), e.g. the one the Trellis server hands to app routes;
   * `turns` says where turns run (default: {@link inProcessTurns} of `graph`); `retrieval` is the
   * graph's retriever, reported on `/health` (default: the one the graph was built with).
   */
  constructor(
    graph: TutorGraph,
    options: {
      provider?: string;
      onClose?: () => void;
      turns?: TurnRunner;
      user?: string | null;
      retrieval?: MonitoredRetriever;
    } = {},
  ) {
    this.graph = graph;
    this.#retrieval = options.retrieval ?? retrievalOf(graph);
    this.provider = options.provider ?? "offline";
    this.#turns = options.turns ?? inProcessTurns(graph);
    this.#user = options.user ?? null;
    this.#onClose = options.onClose;
  }

  /**
   * Builds the graph with a `SqliteSaver` on the app's database (the seed's `build_graph`).
   *
   * @example
   * const agent = GraphAgent.create({ llmProvider: "mistral", mistralApiKey: process.env.MISTRAL_API_KEY });
   */
  static create(options: GraphAgentOptions = {}, checkpointer?: CheckpointSaver): GraphAgent {
    const deps = openTutorDeps(options);
    const saver = checkpointer ?? new SqliteSaver({ database: deps.db });
    const graph = buildTutorGraph({ ...deps, checkpointer: saver });
    return new GraphAgent(graph, {
      provider: deps.llm?.provider ?? "offline",
      retrieval: deps.retriever,
      onClose: () => deps.db.close(),
    });
  }

  /**
   * This agent acting for `user`, the server's authenticated user: the threads it starts are theirs,
   * and another user's threads are not found. Shares the graph and the runner; closing it closes nothing.
   *
   * @example
   * const reply = await agent.forUser(c.get("user")).chat("Hola", "ana", "iv");
   */
  /** What `/health` says about retrieval: searches, failures, the latest failure (undefined when unknown). */
  retrievalHealth(): RetrievalHealth | undefined {
    return this.#retrieval?.health();
  }

  forUser(user: string | null): GraphAgent {
    return new GraphAgent(this.graph, {
      provider: this.provider,
      turns: this.#turns,
      user,
      ...(this.#retrieval ? { retrieval: this.#retrieval } : {}),
    });
  }

  /**
   * Runs one turn: appends the query, sets the subject when given, clears `context`, and runs until the
   * graph ends or pauses on a test question. A thread paused on a question must be answered with
   * {@link callAgentResume} first (`THREAD_PAUSED`, carrying the question as `interrupt_info`).
   */
  async callAgent(
    query: string,
    id: string,
    asignatura?: string | null,
  ): Promise<InvokeResult<typeof subjectStateSchema>> {
    const input = {
      messages: [userMessage(query)],
      context: [],
      ...(asignatura !== undefined && asignatura !== null ? { asignatura } : {}),
    };
    return this.#turn({ threadId: id, input });
  }

  /** Resumes the thread's pending test question with the user's answer (`NOTHING_TO_RESUME` when none). */
  async callAgentResume(
    id: string,
    resumeValue: string,
    questionNum?: number,
  ): Promise<InvokeResult<typeof subjectStateSchema>> {
    return this.#turn({ threadId: id, resume: resumeValue, questionNum });
  }

  /** {@link callAgent} as the seed's `/chat` answers it: `{ message, interrupted, interrupt_info }`. */
  async chat(query: string, id: string, asignatura?: string | null): Promise<ChatResponse> {
    return this.#respond(await this.callAgent(query, id, asignatura), id);
  }

  /** {@link callAgentResume} as the seed's `/resume_chat` answers it. */
  async resumeChat(id: string, answer: string, questionNum?: number): Promise<ChatResponse> {
    return this.#respond(await this.callAgentResume(id, answer, questionNum), id);
  }

  async #turn(turn: TutorTurn): Promise<InvokeResult<typeof subjectStateSchema>> {
    let end: TurnEnd;
    try {
      end = await this.#turns(turn, this.#user);
    } catch (error) {
      throw await this.#explained(error, turn.threadId);
    }
    return end.interrupts.length > 0 ? { ...end.values, __interrupt__: end.interrupts } : end.values;
  }

  async #respond(result: InvokeResult<typeof subjectStateSchema>, id: string): Promise<ChatResponse> {
    if (!result.__interrupt__?.length) return toChatResponse(result);
    const snapshot = await this.graph.getState({ threadId: id }, { subgraphs: true });
    const inner = snapshot.tasks.find((t) => t.state)?.state?.values as { messages?: Message[] } | undefined;
    return toChatResponse(result, inner?.messages);
  }

  /**
   * The graph's refusals, said the way the seed's API is used: which route to call instead, and the
   * pending question as `interrupt_info` (read from the thread when the refusal came from a queued run,
   * whose error carries only a code and a message). Other errors pass through.
   */
  async #explained(error: unknown, id: string): Promise<unknown> {
    if (!(error instanceof TrellisError)) return error;
    if (error.code === "THREAD_PAUSED") {
      const interrupts = error.details.interrupts as { value: unknown }[] | undefined;
      const pending = interrupts
        ? (interrupts[0]?.value as InterruptInfo | undefined)
        : await this.pendingInterrupt(id);
      const question = pending ? `question ${pending.question_num} of ${pending.total_questions}` : "a question";
      return new TrellisError(
        "THREAD_PAUSED",
        `Thread "${id}" is waiting for the answer to ${question} of a test: send it with POST /resume_chat.`,
        { details: { ...error.details, ...(pending ? { interrupt_info: pending } : {}) }, cause: error },
      );
    }
    if (error.code === "RESUME_MISMATCH") {
      // the question this answer was bound to was answered meanwhile (a double click)
      return questionMismatch(id, undefined, await this.pendingInterrupt(id));
    }
    if (error.code === "NOTHING_TO_RESUME") {
      return new TrellisError(
        "NOTHING_TO_RESUME",
        `Thread "${id}" has no test question waiting for an answer: start a conversation or a test with POST /chat.`,
        { details: error.details, cause: error },
      );
    }
    return error;
  }

  /** The test question the thread is waiting on, if any. */
  async pendingInterrupt(id: string): Promise<InterruptInfo | undefined> {
    const state = await this.graph.getState({ threadId: id });
    return state.interrupts[0]?.value as InterruptInfo | undefined;
  }

  /** Closes the database the agent opened (not a checkpointer passed in). */
  close(): void {
    this.#onClose?.();
  }
}

/**
 * Opens (creating its directory) the app's SQLite file.
 *
 * @example
 * const db = openDatabase(".trellis/tutor.sqlite");
 */
export function openDatabase(path: string): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  return new BetterSqlite3(path);
}
