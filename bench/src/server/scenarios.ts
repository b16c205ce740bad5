/**
 * The server bench's scenarios, as a client sees them over loopback HTTP (plain `fetch`, the same for
 * every server). Each checks its own result — the run really paused and resumed to the end, every
 * subscriber received every event — and throws when it did not, so a fast wrong answer never counts.
 */

/** Throws unless the response is a 2xx; returns its JSON body. */
async function post(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function check(condition: boolean, what: string, got: unknown): void {
  if (!condition) throw new Error(`${what}; got ${JSON.stringify(got).slice(0, 300)}`);
}

/** The question the paused run asks, from a `runs/wait` answer's `__interrupt__`. */
function question(out: Record<string, unknown>): unknown {
  const interrupts = out.__interrupt__ as Array<{ value?: { question?: unknown } }> | undefined;
  return interrupts?.[0]?.value?.question;
}

/**
 * (i) One human-in-the-loop conversation: create a thread, run `hitl` to its first interrupt, resume to
 * the second, resume to the end. Four requests; returns the milliseconds they took together.
 */
export async function hitlConversation(base: string, i: number): Promise<number> {
  const started = performance.now();
  const thread = await post(base, "/threads", {});
  const threadId = thread.thread_id as string;
  const wait = `/threads/${threadId}/runs/wait`;
  const first = await post(base, wait, { assistant_id: "hitl", input: { question: `q${i}` } });
  check(question(first) === `q${i}/1`, "the run did not pause at the first question", first);
  const second = await post(base, wait, { assistant_id: "hitl", command: { resume: `a${i}` } });
  // LangGraph's dev server answers a paused run with `__interrupt__` alone: the answers are checked at the end
  check(question(second) === `q${i}/2`, "the first resume did not pause at the second question", second);
  const last = await post(base, wait, { assistant_id: "hitl", command: { resume: `b${i}` } });
  check(
    last.done === true && last.first === `a${i}` && last.second === `b${i}` && last.__interrupt__ === undefined,
    "the second resume did not end the run with both answers",
    last,
  );
  return performance.now() - started;
}

/** (i) `count` conversations one after another; their latencies in milliseconds. */
export async function hitlLatencies(base: string, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push(await hitlConversation(base, i));
  return samples;
}

/**
 * (ii) `total` stateless runs of `quick` (`POST /runs/wait`), `inFlight` at a time; runs per second.
 * Each answer is checked.
 */
export async function runsPerSecond(base: string, inFlight: number, total: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    for (let n = next++; n < total; n = next++) {
      const out = await post(base, "/runs/wait", { assistant_id: "quick", input: { n } });
      check(out.out === n + 1, `run ${n} did not answer n + 1`, out);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, lane));
  return (total / (performance.now() - started)) * 1000;
}

/** The SSE events of one stream, by name, read to its end. */
async function readEvents(url: string): Promise<Map<string, number>> {
  // `Last-Event-ID: -1` asks LangGraph's server to replay a resumable run from its first event (Trellis
  // replays from the start without it)
  const response = await fetch(url, { headers: { accept: "text/event-stream", "last-event-id": "-1" } });
  if (!response.ok || !response.body) throw new Error(`GET ${url}: ${response.status}`);
  const counts = new Map<string, number>();
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk as Uint8Array, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith("event:")) {
        const name = line.slice(6).trim();
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
    }
  }
  return counts;
}

/** What {@link sseFanOut} measured. */
export interface FanOut {
  /** `updates` events received, over all subscribers. */
  events: number;
  eventsPerSecond: number;
}

/**
 * (iii) One `ticker` run (`ticks` steps, one `updates` event each) followed by `subscribers` SSE
 * streams at once (`GET /threads/{id}/runs/{run_id}/stream`, which replays the run's events from the
 * start, then follows it live, until it ends). Checks every subscriber received all `ticks` events;
 * events per second counts from creating the run to the last stream's end.
 */
export async function sseFanOut(base: string, subscribers: number, ticks: number): Promise<FanOut> {
  const thread = await post(base, "/threads", {});
  const threadId = thread.thread_id as string;
  const started = performance.now();
  const run = await post(base, `/threads/${threadId}/runs`, {
    assistant_id: "ticker",
    input: { count: 0 },
    stream_mode: ["updates"],
    stream_resumable: true,
  });
  const url = `${base}/threads/${threadId}/runs/${run.run_id as string}/stream`;
  const all = await Promise.all(Array.from({ length: subscribers }, () => readEvents(url)));
  const ms = performance.now() - started;
  let events = 0;
  for (const counts of all) {
    const updates = counts.get("updates") ?? 0;
    check(updates === ticks, `a subscriber received ${updates} of ${ticks} updates events`, Object.fromEntries(counts));
    events += updates;
  }
  return { events, eventsPerSecond: (events / ms) * 1000 };
}
