import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ limits: { bodyBytes: 4096, stateBytes: 2048 } });
});
afterAll(async () => {
  await t.close();
});

async function send(method: string, path: string, body?: string) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, body: (await res.json()) as { error: string; message: string } };
}
const json = (v: unknown) => JSON.stringify(v);

async function snapshot() {
  const threads = await send("POST", "/threads/search", json({ limit: 1000 }));
  return JSON.stringify(threads.body);
}

describe("bad requests get a 4xx JSON error and store nothing", () => {
  it("each bad request is refused with its code", async () => {
    const thread = (await send("POST", "/threads", json({}))).body as unknown as { thread_id: string };
    const T = thread.thread_id;
    const before = await snapshot();
    const cases: Array<[string, string, string | undefined, number, string]> = [
      ["POST", "/threads", "{not json", 400, "INVALID_ARGUMENT"],
      ["POST", "/threads", "[1,2]", 400, "INVALID_ARGUMENT"],
      ["POST", "/threads", json({ thread_id: "bad id with spaces" }), 400, "INVALID_ARGUMENT"],
      ["POST", "/threads", json({ if_exists: "maybe" }), 400, "INVALID_ARGUMENT"],
      ["POST", "/threads", json({ metadata: "x".repeat(5000) }), 413, "PAYLOAD_TOO_LARGE"],
      ["POST", "/threads/search", json({ limit: -1 }), 400, "INVALID_ARGUMENT"],
      ["POST", "/threads/search", json({ status: "sleeping" }), 400, "INVALID_ARGUMENT"],
      ["GET", "/threads/nope", undefined, 404, "NOT_FOUND"],
      ["GET", "/nowhere", undefined, 404, "NOT_FOUND"],
      ["POST", `/threads/${T}/runs`, json({}), 400, "INVALID_ARGUMENT"],
      ["POST", `/threads/${T}/runs`, json({ assistant_id: "ghost" }), 404, "NOT_FOUND"],
      ["POST", `/threads/${T}/runs`, json({ assistant_id: "slow", input: { nope: 1 } }), 400, "UNKNOWN_STATE_KEY"],
      ["POST", `/threads/${T}/runs`, json({ assistant_id: "slow", input: [1] }), 400, "INVALID_ARGUMENT"],
      [
        "POST",
        `/threads/${T}/runs`,
        json({ assistant_id: "slow", input: {}, stream_mode: ["telepathy"] }),
        400,
        "INVALID_ARGUMENT",
      ],
      [
        "POST",
        `/threads/${T}/runs`,
        json({ assistant_id: "slow", input: {}, interrupt_before: ["zz"] }),
        400,
        "INVALID_ARGUMENT",
      ],
      [
        "POST",
        `/threads/${T}/runs`,
        json({ assistant_id: "slow", input: {}, multitask_strategy: "x" }),
        400,
        "INVALID_ARGUMENT",
      ],
      [
        "POST",
        `/threads/${T}/runs`,
        json({ assistant_id: "slow", input: {}, config: { recursion_limit: 0 } }),
        400,
        "INVALID_ARGUMENT",
      ],
      ["POST", `/threads/${T}/runs`, json({ assistant_id: "slow", command: { resume: 1 } }), 409, "NOTHING_TO_RESUME"],
      ["POST", `/threads/${T}/runs`, json({ assistant_id: "slow", command: { goto: "zz" } }), 400, "INVALID_ARGUMENT"],
      [
        "POST",
        `/threads/${T}/runs`,
        json({ assistant_id: "slow", command: { resume: 1, goto: "a" } }),
        400,
        "INVALID_ARGUMENT",
      ],
      ["POST", `/threads/${T}/runs/wait`, json({ assistant_id: "slow", input: null }), 409, "NOTHING_TO_RESUME"],
      ["POST", "/threads/ghost/runs", json({ assistant_id: "slow", input: {} }), 404, "NOT_FOUND"],
      ["POST", `/threads/${T}/state`, json({ values: { log: [] } }), 400, "INVALID_ARGUMENT"],
      ["POST", `/threads/${T}/runs/x/cancel`, undefined, 404, "NOT_FOUND"],
      ["POST", "/ag-ui/slow", json({ threadId: 1 }), 400, "INVALID_ARGUMENT"],
      ["POST", "/ag-ui/ghost", json({ threadId: "t", runId: "r", messages: [] }), 404, "NOT_FOUND"],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await send(method, path, body);
      expect([method, path, body?.slice(0, 60), res.status, res.body.error]).toEqual([
        method,
        path,
        body?.slice(0, 60),
        status,
        code,
      ]);
      expect(typeof res.body.message).toBe("string");
    }
    expect(await snapshot()).toBe(before);
    expect((await send("GET", `/threads/${T}/runs`)).body).toEqual([]);
  });

  it("a state update past the state limit is 413 and leaves the state as it was", async () => {
    const thread = (await send("POST", "/threads", json({ metadata: { graph_id: "slow" } }))).body as unknown as {
      thread_id: string;
    };
    const res = await send(
      "POST",
      `/threads/${thread.thread_id}/state`,
      json({ values: { answer: "x".repeat(3000) } }),
    );
    expect([res.status, res.body.error]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    const state = (await send("GET", `/threads/${thread.thread_id}/state`)).body as unknown as {
      checkpoint: { checkpoint_id: null };
    };
    expect(state.checkpoint.checkpoint_id).toBeNull();
  });

  it("a run whose state outgrows the limit ends in error, not a crash", async () => {
    const thread = (await send("POST", "/threads", json({}))).body as unknown as { thread_id: string };
    const res = await send(
      "POST",
      `/threads/${thread.thread_id}/runs/wait`,
      json({ assistant_id: "slow", input: { answer: "y".repeat(2500) } }),
    );
    expect(res.status).toBe(200);
    expect((res.body as unknown as { __error__: { error: string } }).__error__.error).toBe("PAYLOAD_TOO_LARGE");
    // refused before it was written: no checkpoint of the thread holds the oversized state
    const history = (await send("POST", `/threads/${thread.thread_id}/history`, json({ limit: 100 })))
      .body as unknown as Array<{ values: unknown }>;
    expect(history.every((h) => JSON.stringify(h.values).length < 2048)).toBe(true);
  });
});
