/**
 * A burst of identical plain resumes at a thread paused at its first gate, each on its own connection,
 * for the tests of "one answer per pause, by the time the request arrived": exactly one is applied, the
 * second gate stays pending, the others are refused with 409 `RESUME_MISMATCH` naming what is pending
 * (or, under `reject`, the multitask refusal), or fail at their turn with `RESUME_MISMATCH`.
 *
 * Each request of the burst announces its body with `Expect: 100-continue`: the server answers
 * `100 Continue` when it has the request's head, which is when it stamps the arrival, so the test knows
 * every request arrived while the first gate was pending before it sends any body. Half the bodies then
 * go at once (a race with the first answer's run); the other half once that run has ended and the
 * second gate waits — requests that arrived in time but are read late, as a slow network delivers them.
 */
import http from "node:http";
import { expect } from "vitest";
import { holdRequest } from "../testing.js";

/** A JSON answer: its status and parsed body. */
export interface JsonAnswer {
  status: number;
  json: Record<string, unknown>;
}

/**
 * One request on a connection of its own (no keep-alive pool, so a burst is that many sockets).
 *
 * @example
 * const { status, json } = await jsonRequest(url, "POST", "/threads", {}, { "x-api-key": "key-ana" });
 */
export function jsonRequest(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonAnswer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, url),
      {
        method,
        agent: false,
        headers: {
          ...(payload !== undefined ? { "content-type": "application/json" } : {}),
          connection: "close",
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => {
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = { text };
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** Where a burst goes: the servers (one or several processes sharing a store) and the caller's headers. */
export interface BurstTarget {
  urls: string[];
  headers: Record<string, string>;
  /** The graph (assistant id): its first gate is `review`, its second `approve`. */
  graph: string;
}

interface ThreadState {
  values: { log: string[]; published: boolean };
  next: string[];
  tasks: Array<{ interrupts: Array<{ id: string }> }>;
}

const stateOf = async (t: BurstTarget, threadId: string) =>
  (await jsonRequest(t.urls[0] as string, "GET", `/threads/${threadId}/state`, undefined, t.headers))
    .json as unknown as ThreadState;

const pendingIds = (s: ThreadState) => s.tasks.flatMap((task) => task.interrupts.map((i) => i.id));

/**
 * A new thread of `t.graph`, paused at its first gate; answers its id and the first gate's interrupt id.
 *
 * @example
 * const { threadId, firstGate } = await pausedAtFirstGate(target);
 */
export async function pausedAtFirstGate(t: BurstTarget): Promise<{ threadId: string; firstGate: string }> {
  const url = t.urls[0] as string;
  const thread = await jsonRequest(url, "POST", "/threads", {}, t.headers);
  expect(thread.status).toBe(200);
  const threadId = thread.json.thread_id as string;
  const first = await jsonRequest(
    url,
    "POST",
    `/threads/${threadId}/runs/wait`,
    { assistant_id: t.graph, input: { log: [] } },
    t.headers,
  );
  expect(first.status).toBe(200);
  const state = await stateOf(t, threadId);
  expect(state.next).toEqual(["review"]);
  return { threadId, firstGate: pendingIds(state)[0] as string };
}

/** Waits for the runs to end and reads them. */
async function endedRuns(t: BurstTarget, threadId: string, runIds: string[]): Promise<Array<Record<string, unknown>>> {
  const url = t.urls[0] as string;
  const runs = [];
  for (const runId of runIds) {
    await jsonRequest(url, "GET", `/threads/${threadId}/runs/${runId}/join`, undefined, t.headers);
    runs.push((await jsonRequest(url, "GET", `/threads/${threadId}/runs/${runId}`, undefined, t.headers)).json);
  }
  return runs;
}

/**
 * Sends `n` identical `command: { resume }` requests, spread over the servers, each on its own socket:
 * every head first (all arrive while the first gate is pending), then half the bodies at once, then —
 * once the accepted runs ended and the second gate waits — the other half. Checks that exactly one
 * answer was applied and the second gate is pending, unanswered; that a run accepted and then refused
 * at its turn recorded `RESUME_MISMATCH`; that a request refused up front is a 409 `RESUME_MISMATCH`
 * naming what the thread waits on (under `reject`, also the multitask refusal); and that every late
 * request is a 409 `RESUME_MISMATCH` naming the second gate. Answers how the requests ended.
 *
 * @example
 * const r = await resumeBurst(target, threadId, { n: 20, strategy: "enqueue", firstGate });
 */
export async function resumeBurst(
  t: BurstTarget,
  threadId: string,
  o: { n: number; strategy: "enqueue" | "reject"; firstGate: string },
): Promise<{ applied: number; refused: string[]; failedAtTurn: string[] }> {
  const body = { assistant_id: t.graph, command: { resume: "yes" }, multitask_strategy: o.strategy };
  const held = await Promise.all(
    Array.from({ length: o.n }, (_, k) =>
      holdRequest(t.urls[k % t.urls.length] as string, `/threads/${threadId}/runs`, body, t.headers),
    ),
  );
  const half = Math.ceil(o.n / 2);
  const early = await Promise.all(held.slice(0, half).map((h) => h.send()));
  const earlyRuns = await endedRuns(
    t,
    threadId,
    early.filter((a) => a.status === 200).map((a) => a.json.run_id as string),
  );
  const atSecondGate = await stateOf(t, threadId);
  expect(atSecondGate.next).toEqual(["approve"]);
  const secondGate = pendingIds(atSecondGate)[0] as string;
  expect(secondGate).not.toBe(o.firstGate);
  const late = await Promise.all(held.slice(half).map((h) => h.send()));
  const lateRuns = await endedRuns(
    t,
    threadId,
    late.filter((a) => a.status === 200).map((a) => a.json.run_id as string),
  );
  // a request that arrived while the first gate was pending and is read after the second gate came:
  // refused, naming the second gate, so the client can answer it by id if it means to
  for (const a of late) {
    expect(a.status).toBe(409);
    expect(a.json.error).toBe("RESUME_MISMATCH");
    expect((a.json.details as { pending?: unknown }).pending).toEqual([secondGate]);
    expect(String(a.json.message)).toContain(secondGate);
  }
  const after = await stateOf(t, threadId);
  // exactly one answer applied: it answered the first gate, and the second waits, unanswered
  expect(after.values.log).toEqual(["review: yes"]);
  expect(after.values.published).toBe(false);
  expect(after.next).toEqual(["approve"]);
  expect(pendingIds(after)).toEqual([secondGate]);
  const runs = [...earlyRuns, ...lateRuns];
  const applied = runs.filter((r) => r.status === "success");
  expect(applied).toHaveLength(1);
  // a run accepted and then refused at its turn has its error recorded: RESUME_MISMATCH, nothing else
  const failed = runs.filter((r) => r.status !== "success");
  for (const r of failed) {
    expect(r.status).toBe("error");
    expect((r.error as { error?: string } | null)?.error).toBe("RESUME_MISMATCH");
  }
  // a request refused up front: 409, RESUME_MISMATCH naming what the thread waited on then (by
  // interrupt id; none while the first answer's run was between the gates), or the multitask refusal
  const refusals = [...early, ...late].filter((a) => a.status !== 200);
  for (const a of refusals) {
    expect(a.status).toBe(409);
    const code = a.json.error as string;
    if (o.strategy === "enqueue") expect(code).toBe("RESUME_MISMATCH");
    else expect(["RESUME_MISMATCH", "CONFLICT"]).toContain(code);
    if (code === "RESUME_MISMATCH") {
      const pending = (a.json.details as { pending?: unknown } | undefined)?.pending as string[];
      expect(Array.isArray(pending)).toBe(true);
      for (const id of pending) expect([o.firstGate, secondGate]).toContain(id);
      for (const id of pending) expect(String(a.json.message)).toContain(id);
    }
  }
  const thread = await jsonRequest(t.urls[0] as string, "GET", `/threads/${threadId}`, undefined, t.headers);
  expect(thread.json.status).toBe("interrupted");
  return {
    applied: applied.length,
    refused: refusals.map((a) => String(a.json.error)),
    failedAtTurn: failed.map((r) => String((r.error as { error?: string }).error)),
  };
}

/**
 * The second gate answered by its interrupt id after the burst: it applies (a bound resume still works).
 *
 * @example
 * await answerSecondGateById(target, threadId);
 */
export async function answerSecondGateById(t: BurstTarget, threadId: string): Promise<void> {
  const url = t.urls[0] as string;
  const [id] = pendingIds(await stateOf(t, threadId));
  const done = await jsonRequest(
    url,
    "POST",
    `/threads/${threadId}/runs/wait`,
    { assistant_id: t.graph, command: { resume: { [id as string]: "ship it" } } },
    t.headers,
  );
  expect(done.status).toBe(200);
  const after = await stateOf(t, threadId);
  expect(after.values.log).toEqual(["review: yes", "approve: ship it"]);
  expect(after.values.published).toBe(true);
}

/**
 * `trials` threads, each paused at its first gate and sent a burst of 20 identical plain resumes: exactly
 * one applies and 19 are refused, on every thread; on the first, the second gate still answers by its id.
 */
export async function oneAnswerPerBurst(t: BurstTarget, strategy: "enqueue" | "reject", trials = 3): Promise<void> {
  for (let trial = 0; trial < trials; trial++) {
    const { threadId, firstGate } = await pausedAtFirstGate(t);
    const r = await resumeBurst(t, threadId, { n: 20, strategy, firstGate });
    expect(r.applied).toBe(1);
    expect(r.refused.length + r.failedAtTurn.length).toBe(19);
    if (trial === 0) await answerSecondGateById(t, threadId);
  }
}
