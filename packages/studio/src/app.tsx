import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ApiClient, ApiError } from "./api-client.js";
import type { Assistant, ServerInfo, Thread } from "./api-types.js";
import { GraphPage } from "./graph-page.js";
import { LiveRuns } from "./live-runs.js";
import { threadStatusLabel } from "./status-labels.js";
import { ThreadPage } from "./thread-page.js";

type Route = { page: "graph"; id: string } | { page: "thread"; id: string } | { page: "home" };

/**
 * Reads the hash route: `#/graph/<id>`, `#/thread/<id>`, or the home page.
 *
 * @example
 * parseRoute("#/thread/t-1"); // { page: "thread", id: "t-1" }
 */
export function parseRoute(hash: string): Route {
  const m = /^#\/(graph|thread)\/(.+)$/.exec(hash);
  if (!m) return { page: "home" };
  return { page: m[1] as "graph" | "thread", id: decodeURIComponent(m[2] as string) };
}

/**
 * The studio: graphs and threads on the left, the open graph or thread on the right, errors in a
 * banner, an API key form when the server wants credentials.
 *
 * @example
 * render(<App />, document.getElementById("app")!);
 */
export function App() {
  const api = useMemo(() => new ApiClient(), []);
  const live = useMemo(() => new LiveRuns(api), [api]);
  const [route, setRoute] = useState<Route>(parseRoute(location.hash));
  const [info, setInfo] = useState<ServerInfo | undefined>();
  const [assistants, setAssistants] = useState<Assistant[]>([]);
  const [threads, setThreads] = useState<Thread[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [needKey, setNeedKey] = useState(false);

  const showError = useCallback((e: unknown) => {
    if (e instanceof ApiError && e.status === 401) setNeedKey(true);
    setError(e instanceof Error ? e.message : String(e));
  }, []);

  const loadThreads = useCallback(async () => {
    setThreads(await api.searchThreads({ limit: 50, sort_by: "updated_at", sort_order: "desc" }));
  }, [api]);

  const load = useCallback(async () => {
    const [i, a] = await Promise.all([api.info(), api.assistants()]);
    setInfo(i);
    setAssistants(a);
    await loadThreads();
    setNeedKey(false);
  }, [api, loadThreads]);

  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", onHash);
    load().catch(showError);
    const timer = setInterval(() => loadThreads().catch(() => undefined), 4000);
    return () => {
      window.removeEventListener("hashchange", onHash);
      clearInterval(timer);
    };
  }, []);

  const go = (hash: string) => {
    location.hash = hash;
  };
  const current = route.page === "graph" ? assistants.find((a) => a.assistant_id === route.id) : undefined;

  return (
    <div class="studio">
      <header class="top">
        <a href="#/" class="brand">
          Trellis <span class="brand-sub">Studio</span>
        </a>
        {info ? (
          <span class="muted">
            server {info.version} · {info.saver} · queue {info.queue}
            {info.auth ? " · auth on" : ""}
          </span>
        ) : null}
      </header>
      {error ? (
        <div class="error-banner" role="alert" data-testid="error-banner">
          <span>{error}</span>
          <button type="button" class="dismiss" onClick={() => setError(undefined)} aria-label="dismiss">
            ×
          </button>
        </div>
      ) : null}
      {needKey ? <KeyForm api={api} onSaved={() => load().then(() => setError(undefined), showError)} /> : null}
      <div class="body">
        <nav class="side">
          <h4>Graphs</h4>
          <ul>
            {assistants.map((a) => (
              <li key={a.assistant_id}>
                <a
                  href={`#/graph/${encodeURIComponent(a.assistant_id)}`}
                  class={route.page === "graph" && route.id === a.assistant_id ? "current" : ""}
                  data-testid={`graph-link-${a.assistant_id}`}
                >
                  {a.name}
                </a>
              </li>
            ))}
          </ul>
          <h4>
            Threads{" "}
            <button type="button" class="link small" onClick={() => loadThreads().catch(showError)}>
              refresh
            </button>
          </h4>
          <ul class="threads">
            {threads.length === 0 ? <li class="muted">none yet</li> : null}
            {threads.map((t) => (
              <li key={t.thread_id}>
                <a
                  href={`#/thread/${encodeURIComponent(t.thread_id)}`}
                  class={route.page === "thread" && route.id === t.thread_id ? "current" : ""}
                >
                  <span class={`dot ${t.status}`} title={threadStatusLabel(t.status)} />
                  <span class="thread-id">{t.thread_id.slice(0, 13)}</span>
                  <span class="muted small">{String(t.metadata.graph_id ?? "")}</span>
                  <span class={`badge thread-badge ${t.status}`}>{threadStatusLabel(t.status)}</span>
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main class="main">
          {route.page === "home" ? <Home assistants={assistants} /> : null}
          {route.page === "graph" && current ? (
            <GraphPage
              api={api}
              live={live}
              assistant={current}
              onError={showError}
              onStarted={(id) => {
                go(`#/thread/${encodeURIComponent(id)}`);
                loadThreads().catch(showError);
              }}
            />
          ) : null}
          {route.page === "graph" && !current && assistants.length > 0 ? (
            <p class="error-text">No graph "{route.id}" on this server.</p>
          ) : null}
          {route.page === "thread" ? (
            <ThreadPage
              key={route.id}
              api={api}
              live={live}
              threadId={route.id}
              onError={showError}
              onChanged={() => loadThreads().catch(showError)}
            />
          ) : null}
        </main>
      </div>
    </div>
  );
}

function Home({ assistants }: { assistants: Assistant[] }) {
  return (
    <div class="home">
      <h2>Graphs on this server</h2>
      <ul class="cards">
        {assistants.map((a) => (
          <li key={a.assistant_id}>
            <a href={`#/graph/${encodeURIComponent(a.assistant_id)}`}>
              <b>{a.name}</b>
              <span class="muted">{a.description ?? a.assistant_id}</span>
            </a>
          </li>
        ))}
      </ul>
      <p class="muted">
        Open a graph to see its drawing and start a run; open a thread to watch it, answer it, or travel in time.
      </p>
    </div>
  );
}

function KeyForm({ api, onSaved }: { api: ApiClient; onSaved: () => void }) {
  const [key, setKey] = useState("");
  return (
    <form
      class="key-form"
      onSubmit={(e) => {
        e.preventDefault();
        api.apiKey = key.trim() || null;
        onSaved();
      }}
    >
      <label>
        This server needs credentials. API key:{" "}
        <input type="password" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit">Save</button>
    </form>
  );
}
