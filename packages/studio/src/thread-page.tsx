import { useCallback, useEffect, useState } from "preact/hooks";
import { type ApiClient, ApiError } from "./api-client.js";
import type { GraphJson, Run, Thread, ThreadState } from "./api-types.js";
import { GraphView } from "./graph-view.js";
import { InterruptPanel } from "./interrupt-panel.js";
import { JsonBlock } from "./json-block.js";
import type { LiveRuns } from "./live-runs.js";
import { RunLogView } from "./run-log-view.js";
import { type ThreadUsage, threadUsage, usageText } from "./run-usage.js";
import { runWaterfall, timedRuns } from "./run-waterfall.js";
import { RunWaterfallView } from "./run-waterfall-view.js";
import { documentLinks } from "./state-reading.js";
import { StateTimeline } from "./state-timeline.js";
import { threadStatusLabel } from "./status-labels.js";

/** Props of {@link ThreadPage}. */
export interface ThreadPageProps {
  api: ApiClient;
  live: LiveRuns;
  threadId: string;
  onError(error: unknown): void;
  /** Called when the thread changed (a run ended), so lists refresh. */
  onChanged(): void;
}

/**
 * One thread: its graph with the running node highlighted, the live log of the run being watched, the
 * interrupt panel when it is paused, the waterfall of its latest run's tasks, its current values (with
 * links to documents such as a PDF), and the state timeline with time travel.
 *
 * @example
 * <ThreadPage api={api} live={live} threadId="t-1" onError={show} onChanged={reload} />
 */
export function ThreadPage({ api, live, threadId, onError, onChanged }: ThreadPageProps) {
  const [thread, setThread] = useState<Thread | undefined>();
  const [state, setState] = useState<ThreadState | undefined>();
  const [history, setHistory] = useState<ThreadState[]>([]);
  const [graph, setGraph] = useState<{ id: string; json: GraphJson } | undefined>();
  const [log, setLog] = useState(live.get(threadId));
  const [streaming, setStreaming] = useState(live.isStreaming(threadId));
  const [missing, setMissing] = useState<string | undefined>();
  const [usage, setUsage] = useState<ThreadUsage | undefined>();
  const [runs, setRuns] = useState<Run[]>([]);
  const [pickedRun, setPickedRun] = useState<string | undefined>();

  const graphId = (thread?.metadata.graph_id as string | undefined) ?? undefined;

  const refresh = useCallback(async () => {
    const t = await api.thread(threadId);
    setThread(t);
    const [s, h, runs] = await Promise.all([api.state(threadId), api.history(threadId, 100), api.runs(threadId)]);
    setState(s);
    setHistory(h);
    setUsage(threadUsage(runs));
    setRuns(runs);
    const gid = t.metadata.graph_id as string | undefined;
    if (gid) {
      const json = await api.graph(gid);
      setGraph((g) => (g?.id === gid ? g : { id: gid, json }));
    }
    if (t.status === "busy" && !live.isStreaming(threadId)) {
      const active = runs.find((r) => r.status === "running" || r.status === "pending");
      if (active) void live.join(threadId, active.run_id);
    }
  }, [api, live, threadId]);

  useEffect(() => {
    setPickedRun(undefined);
    setLog(live.get(threadId));
    setStreaming(live.isStreaming(threadId));
    refresh().catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) setMissing(error.message);
      else onError(error);
    });
    return live.subscribe((id) => {
      if (id !== threadId) return;
      setLog(live.get(threadId));
      setStreaming(live.isStreaming(threadId));
    });
  }, [threadId]);

  useEffect(() => {
    if (streaming) return;
    if (log) {
      refresh().catch(onError);
      onChanged();
    }
  }, [streaming]);

  const run = (body: Record<string, unknown>) => {
    if (!graphId) return onError(new Error("This thread has no graph yet."));
    void live.start(threadId, { assistant_id: graphId, ...body });
  };
  const guard = (fn: () => Promise<void>) => () => {
    fn().catch(onError);
  };

  if (missing) return <p class="error-text">{missing}</p>;
  const threadPaused = thread?.status === "interrupted";
  const waterfall = runWaterfall(runs, pickedRun, threadPaused);
  if (!thread) return <p class="muted">Loading thread {threadId}…</p>;
  const paused = !streaming && state ? state.next : [];
  const links = documentLinks(state?.values ?? log?.values);
  return (
    <div class="thread-page">
      <header class="page-head">
        <h2>
          Thread <code>{threadId}</code>
        </h2>
        <span class={`badge ${streaming ? "busy" : thread.status}`} data-testid="thread-status">
          {streaming ? "running" : threadStatusLabel(thread.status)}
        </span>
        {graphId ? <a href={`#/graph/${encodeURIComponent(graphId)}`}>{graphId}</a> : null}
      </header>
      {thread.status === "error" && thread.error ? (
        <p class="error-text">The last run failed: {errorMessage(thread.error)}</p>
      ) : null}
      <div class="columns">
        <div class="col">
          {graph ? (
            <section class="panel">
              <GraphView
                graph={graph.json}
                active={streaming ? (log?.active ?? []) : []}
                paused={paused}
                visited={log?.visited ?? []}
              />
            </section>
          ) : null}
          <RunLogView log={log} streaming={streaming} />
          {waterfall && !streaming ? (
            <RunWaterfallView
              waterfall={waterfall}
              runs={timedRuns(runs)}
              onPick={setPickedRun}
              threadPaused={threadPaused}
            />
          ) : null}
        </div>
        <div class="col">
          {state && !streaming ? (
            <InterruptPanel
              state={state}
              busy={streaming}
              actions={{
                resume: (value) => run({ command: { resume: value } }),
                updateAndContinue: (values) =>
                  guard(async () => {
                    if (Object.keys(values).length > 0) await api.updateState(threadId, values);
                    run({ input: null });
                  })(),
              }}
            />
          ) : null}
          {links.length > 0 ? (
            <section class="panel documents" data-testid="documents">
              <h3>Documents</h3>
              {links.map((l) => (
                <a
                  key={l.key}
                  class="doc-link"
                  href={l.url}
                  target="_blank"
                  rel="noreferrer"
                  data-testid="document-link"
                >
                  {l.key === "pdf_url" ? "Open the PDF" : l.key}
                </a>
              ))}
            </section>
          ) : null}
          {usage ? (
            <section class="panel usage" data-testid="model-usage">
              <h3>Model usage</h3>
              <p>{usageText(usage)}</p>
              <p class="muted">
                {usage.byNode.map((n) => `${n.node}: ${n.totalTokens.toLocaleString("en-US")}`).join(" · ")}
              </p>
            </section>
          ) : null}
          <section class="panel">
            <h3>Values</h3>
            <div class="values">
              <JsonBlock value={state?.values ?? log?.values ?? {}} />
            </div>
          </section>
          <StateTimeline
            history={history}
            busy={streaming}
            actions={{
              fork: (checkpointId, values, andRun) =>
                guard(async () => {
                  if (andRun && Object.keys(values).length === 0)
                    return run({ input: null, checkpoint_id: checkpointId });
                  await api.updateState(threadId, values, checkpointId);
                  if (andRun) run({ input: null });
                  else await refresh();
                })(),
              replay: (checkpointId) => run({ input: null, checkpoint_id: checkpointId }),
            }}
          />
        </div>
      </div>
    </div>
  );
}

function errorMessage(error: unknown): string {
  if (typeof error === "string") return error;
  const e = error as { message?: string; error?: string };
  return e?.message ?? e?.error ?? JSON.stringify(error);
}
