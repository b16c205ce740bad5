import { useEffect, useState } from "preact/hooks";
import type { ApiClient } from "./api-client.js";
import type { Assistant, GraphJson } from "./api-types.js";
import { exampleInput } from "./example-inputs.js";
import { GraphView } from "./graph-view.js";
import type { LiveRuns } from "./live-runs.js";

/** Props of {@link GraphPage}. */
export interface GraphPageProps {
  api: ApiClient;
  live: LiveRuns;
  assistant: Assistant;
  onError(error: unknown): void;
  /** Called with the new thread once a run started. */
  onStarted(threadId: string): void;
}

/**
 * One graph: its drawing and a form to start a run with a JSON input (prefilled with an example).
 *
 * @example
 * <GraphPage api={api} live={live} assistant={a} onError={show} onStarted={(id) => go(`#/thread/${id}`)} />
 */
export function GraphPage({ api, live, assistant, onError, onStarted }: GraphPageProps) {
  const id = assistant.assistant_id;
  const [graph, setGraph] = useState<GraphJson | undefined>();
  const [input, setInput] = useState("");
  const [problem, setProblem] = useState<string | undefined>();
  const [starting, setStarting] = useState(false);

  useEffect(() => {
    setGraph(undefined);
    setProblem(undefined);
    api.graph(id).then(setGraph).catch(onError);
    void fetchSchemaKeys(api, id)
      .catch(() => [])
      .then((keys) => setInput(JSON.stringify(exampleInput(id, keys), null, 2)));
  }, [id]);

  const start = async () => {
    let parsed: unknown;
    try {
      parsed = input.trim() === "" ? {} : JSON.parse(input);
    } catch (error) {
      return setProblem(`The input is not valid JSON: ${(error as Error).message}`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return setProblem('The input must be a JSON object of state keys, like {"request": "…"}.');
    }
    setProblem(undefined);
    setStarting(true);
    try {
      const thread = await api.createThread(id);
      void live.start(thread.thread_id, { assistant_id: id, input: parsed });
      onStarted(thread.thread_id);
    } catch (error) {
      onError(error);
    } finally {
      setStarting(false);
    }
  };

  return (
    <div class="graph-page">
      <header class="page-head">
        <h2>{assistant.name}</h2>
        <code>{id}</code>
      </header>
      {assistant.description ? <p class="description">{assistant.description}</p> : null}
      <div class="columns">
        <section class="panel drawing" data-testid="graph-drawing">
          {graph ? <GraphView graph={graph} /> : <p class="muted">Drawing…</p>}
        </section>
        <section class="panel start-run">
          <h3>Start a run</h3>
          <label>
            <span>Input (JSON state keys)</span>
            <textarea
              rows={12}
              value={input}
              onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)}
              data-testid="run-input"
            />
          </label>
          {problem ? <p class="error-text">{problem}</p> : null}
          <button
            type="button"
            class="primary"
            disabled={starting}
            onClick={() => void start()}
            data-testid="start-run"
          >
            {starting ? "Starting…" : "Start run"}
          </button>
        </section>
      </div>
    </div>
  );
}

async function fetchSchemaKeys(api: ApiClient, id: string): Promise<string[]> {
  const schemas = await api.schemas(id);
  return Object.keys(schemas.state_schema?.properties ?? {});
}
