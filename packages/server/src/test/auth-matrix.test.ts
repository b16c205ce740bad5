import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdRequest } from "../testing.js";
import { startTestServer, type TestServer } from "./harness.js";

let t: TestServer;
const ANA = { "x-api-key": "key-ana" };
const BO = { authorization: "Bearer tok-bo" };
const OPS = { "x-api-key": "key-ops" };

beforeAll(async () => {
  t = await startTestServer({
    auth: {
      enabled: true,
      credentials: [
        { user: "ana", apiKey: "key-ana" },
        { user: "bo", token: "tok-bo" },
        { user: "ops", apiKey: "key-ops", role: "operator" },
      ],
    },
  });
});
afterAll(async () => {
  await t.close();
});

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

describe("auth: every thread route", () => {
  it("no credentials 401, another user's thread 404, the owner 2xx", async () => {
    const created = await call("POST", "/threads", ANA, { metadata: { project: "p1" } });
    expect(created.status).toBe(200);
    const T = created.json().thread_id as string;
    const setup = await call("POST", `/threads/${T}/runs`, ANA, {
      assistant_id: "approval-flow",
      input: { request: "r" },
    });
    const R0 = setup.json().run_id as string;
    await call("GET", `/threads/${T}/runs/${R0}/join`, ANA);
    const cp = ((await call("GET", `/threads/${T}/state`, ANA)).json().checkpoint as { checkpoint_id: string })
      .checkpoint_id;

    const routes: Array<[string, string, unknown?]> = [
      ["GET", `/threads/${T}`],
      ["PATCH", `/threads/${T}`, { metadata: { a: 1 } }],
      ["GET", `/threads/${T}/state`],
      ["GET", `/threads/${T}/state/${cp}`],
      ["POST", `/threads/${T}/state/checkpoint`, { checkpoint: { checkpoint_id: cp } }],
      ["POST", `/threads/${T}/history`, { limit: 5 }],
      ["GET", `/threads/${T}/runs`],
      ["GET", `/threads/${T}/runs/${R0}`],
      ["GET", `/threads/${T}/runs/${R0}/join`],
      ["GET", `/threads/${T}/runs/${R0}/stream`],
      ["POST", `/threads/${T}/runs/${R0}/cancel`],
      ["POST", `/threads/${T}/state`, { values: { draft: "edited" } }],
      ["POST", `/threads/${T}/runs/wait`, { assistant_id: "approval-flow", input: { request: "again" } }],
      ["POST", `/threads/${T}/runs/stream`, { assistant_id: "approval-flow", input: { request: "once more" } }],
      [
        "POST",
        `/threads/${T}/runs`,
        { assistant_id: "approval-flow", input: { request: "bg" }, multitask_strategy: "enqueue" },
      ],
      ["GET", `/threads/${T}/stream`],
      ["DELETE", `/threads/${T}/runs/${R0}`],
      ["DELETE", `/threads/${T}`],
    ];
    const historyBefore = (await call("POST", `/threads/${T}/history`, ANA, { limit: 100 })).text;
    for (const [method, path, body] of routes) {
      const anonymous = await call(method, path, {}, body);
      expect([method, path, anonymous.status]).toEqual([method, path, 401]);
      expect(anonymous.json().error).toBe("UNAUTHORIZED");
      const other = await call(method, path, BO, body);
      expect([method, path, other.status]).toEqual([method, path, 404]);
      expect(other.json().error).toBe("NOT_FOUND");
    }
    // nothing the refused requests asked for happened
    expect((await call("POST", `/threads/${T}/history`, ANA, { limit: 100 })).text).toBe(historyBefore);
    for (const [method, path, body] of routes) {
      const owner = await call(method, path, ANA, body);
      expect([method, path, owner.status >= 200 && owner.status < 300]).toEqual([method, path, true]);
      if (path.endsWith("/runs") && method === "POST") {
        await call("GET", `/threads/${T}/runs/${owner.json().run_id}/join`, ANA);
      }
    }
    expect((await call("GET", `/threads/${T}`, ANA)).status).toBe(404);
  });

  it("a caller cannot name the run's user: every door taking a run's config refuses the reserved keys, 400 naming the key", async () => {
    const T = (await call("POST", "/threads", ANA, {})).json().thread_id as string;
    const forged = { user_id: "ana" };
    const run = { assistant_id: "approval-flow", input: { request: "r" }, config: { configurable: forged } };
    const doors: Array<[string, string, unknown]> = [
      ["POST", `/threads/${T}/runs`, run],
      ["POST", `/threads/${T}/runs/wait`, run],
      ["POST", `/threads/${T}/runs/stream`, run],
      ["POST", "/runs", run],
      ["POST", "/runs/wait", run],
      ["POST", "/runs/stream", run],
      ["POST", "/runs/batch", [run]],
      ["POST", `/threads/${T}/runs/crons`, { ...run, schedule: "* * * * *" }],
      ["POST", "/runs/crons", { ...run, schedule: "* * * * *" }],
      ["POST", "/assistants", { graph_id: "approval-flow", context: forged }],
      [
        "POST",
        "/ag-ui/approval-flow",
        { threadId: T, runId: "r-forged", messages: [], forwardedProps: { configurable: forged } },
      ],
    ];
    for (const [method, path, body] of doors) {
      // the owner naming herself: the user is the server's to say, for everyone
      const own = await call(method, path, ANA, body);
      expect([method, path, own.status]).toEqual([method, path, 400]);
      expect([path, own.text.includes("user_id")]).toEqual([path, true]);
      // bo forging ana: refused too (a 404 where the thread is not his to see)
      const other = await call(method, path, BO, body);
      expect([method, path, [400, 404].includes(other.status)]).toEqual([method, path, true]);
    }
    expect((await call("GET", `/threads/${T}/runs`, ANA)).json()).toEqual([]);
  });

  it("search and count show only the caller's threads; the public /ok needs no credentials", async () => {
    const mine = (await call("POST", "/threads", ANA, { metadata: { k: "v" } })).json().thread_id;
    expect((await call("POST", "/threads/search", BO, { metadata: { k: "v" } })).json()).toEqual([]);
    const found = (await call("POST", "/threads/search", ANA, { metadata: { k: "v" } })).text;
    expect(found).toContain(String(mine));
    expect((await call("POST", "/threads/count", BO, {})).text).toBe("0");
    expect((await call("GET", "/ok", {})).status).toBe(200);
    expect((await call("POST", "/threads/search", {}, {})).status).toBe(401);
    expect((await call("GET", "/assistants/approval-flow", { "x-api-key": "wrong" })).status).toBe(401);
    expect((await call("GET", "/assistants/approval-flow", BO)).status).toBe(200);
  });
});

describe("auth: the edge's bounds on what reaches SQL", () => {
  it("no credentials 401 before any bound is checked; with them a 400 naming the bound, never a 500 or another user's label", async () => {
    const wide = Object.fromEntries(Array.from({ length: 999 }, (_, i) => [`k${i}`, i]));
    for (const [method, path, body] of [
      ["POST", "/threads/search", { metadata: wide }],
      ["POST", "/assistants/search", { metadata: wide }],
      ["POST", "/runs/crons/search", { metadata: wide }],
      ["POST", "/threads", { metadata: { note: "\u0000" } }],
      ["PUT", "/store/items", { namespace: [], key: "k", value: { a: 1 } }],
      ["POST", "/store/items/search", { filter: wide }],
    ] as const) {
      expect((await call(method, path, {}, body)).status, `${path} without credentials`).toBe(401);
      const answer = await call(method, path, BO, body);
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect(answer.text).not.toMatch(/user:/);
    }
    const dotted = await call("PUT", "/store/items", BO, { namespace: ["notes", "a.b"], key: "k", value: { a: 1 } });
    expect(dotted.status).toBe(400);
    expect(dotted.json().message).toContain('["notes","a.b"]');
    expect(dotted.text).not.toMatch(/user:bo/);
    // a NUL in the URL is refused before auth, the same with or without credentials
    expect((await call("GET", "/threads/t%00", {})).status).toBe(400);
    expect((await call("GET", "/threads/t%00", ANA)).status).toBe(400);
  });
});

describe("auth: the operator role", () => {
  it("an operator lists, reads and deletes any user's threads, runs and crons; never runs or changes them", async () => {
    const T = (await call("POST", "/threads", ANA, { metadata: { audit: "ops" } })).json().thread_id as string;
    const R = (await call("POST", `/threads/${T}/runs`, ANA, { assistant_id: "slow", input: { delayMs: 0 } })).json()
      .run_id as string;
    await call("GET", `/threads/${T}/runs/${R}/join`, ANA);
    const C = (await call("POST", "/runs/crons", ANA, { assistant_id: "slow", schedule: "0 3 * * *" })).json()
      .cron_id as string;

    // another user (not an operator) sees none of it and can remove none of it
    expect((await call("POST", "/threads/search", BO, { metadata: { audit: "ops" } })).json()).toEqual([]);
    expect((await call("POST", "/runs/crons/search", BO, {})).json()).toEqual([]);
    for (const [method, path] of [
      ["GET", `/threads/${T}`],
      ["GET", `/threads/${T}/runs`],
      ["GET", `/runs/crons/${C}`],
      ["DELETE", `/runs/crons/${C}`],
      ["DELETE", `/threads/${T}/runs/${R}`],
      ["DELETE", `/threads/${T}`],
    ] as const) {
      expect([method, path, (await call(method, path, BO)).status]).toEqual([method, path, 404]);
    }

    // the operator finds them in search and count, and reads them
    const found = (await call("POST", "/threads/search", OPS, { metadata: { owner: "ana", audit: "ops" } })).json();
    expect((found as unknown as Array<{ thread_id: string }>).map((t) => t.thread_id)).toEqual([T]);
    expect(Number((await call("POST", "/threads/count", OPS, { metadata: { audit: "ops" } })).text)).toBe(1);
    const crons = (await call("POST", "/runs/crons/search", OPS, {})).json() as unknown as Array<{
      cron_id: string;
      user_id: string;
    }>;
    expect(crons.find((c) => c.cron_id === C)?.user_id).toBe("ana");
    for (const path of [
      `/threads/${T}`,
      `/threads/${T}/state`,
      `/threads/${T}/runs`,
      `/threads/${T}/runs/${R}`,
      `/runs/crons/${C}`,
    ]) {
      expect([path, (await call("GET", path, OPS)).status]).toEqual([path, 200]);
    }
    // …but never runs on, changes or copies another user's thread or cron
    for (const [method, path, body] of [
      ["POST", `/threads/${T}/runs`, { assistant_id: "slow", input: {} }],
      ["POST", `/threads/${T}/state`, { values: {} }],
      ["PATCH", `/threads/${T}`, { metadata: { a: 1 } }],
      ["POST", `/threads/${T}/copy`, {}],
      ["PATCH", `/runs/crons/${C}`, { enabled: false }],
    ] as const) {
      expect([method, path, (await call(method, path, OPS, body)).status]).toEqual([method, path, 404]);
    }

    // and deletes them
    expect((await call("DELETE", `/runs/crons/${C}`, OPS)).status).toBe(204);
    expect((await call("DELETE", `/threads/${T}/runs/${R}`, OPS)).status).toBe(204);
    expect((await call("DELETE", `/threads/${T}`, OPS)).status).toBe(204);
    expect((await call("GET", `/threads/${T}`, ANA)).status).toBe(404);
    expect((await call("GET", `/runs/crons/${C}`, ANA)).status).toBe(404);
  });
});

describe("auth: who may answer a pause, and which pause", () => {
  it("only the owner answers; another user or an operator gets 404 and no interrupt id; the owner's duplicate answers nothing", async () => {
    const T = (await call("POST", "/threads", ANA, {})).json().thread_id as string;
    await call("POST", `/threads/${T}/runs/wait`, ANA, { assistant_id: "approval-flow", input: { request: "r" } });
    const pending = async () =>
      ((await call("GET", `/threads/${T}/state`, ANA)).json().interrupts as Array<{ id: string }>).map((i) => i.id);
    const [review] = await pending();
    expect(review).toBeTruthy();

    // four answers that arrived while the thread waited at its first gate; their bodies come later
    const path = `/threads/${T}/runs/wait`;
    const body = { assistant_id: "approval-flow", command: { resume: "" }, multitask_strategy: "enqueue" };
    const [first, duplicate, bo, ops] = await Promise.all([
      holdRequest(t.url, path, body, ANA),
      holdRequest(t.url, path, body, ANA),
      holdRequest(t.url, path, body, BO),
      holdRequest(t.url, path, body, OPS),
    ]);
    for (const [who, held] of [
      ["bo", bo],
      ["ops", ops],
    ] as const) {
      const answer = await held.send();
      expect([who, answer.status, answer.json.error]).toEqual([who, 404, "NOT_FOUND"]);
      expect(JSON.stringify(answer.json)).not.toContain(review);
    }
    expect(await pending()).toEqual([review]);

    expect((await first.send()).status).toBe(200);
    const [approve] = await pending();
    expect(approve).toBeTruthy();
    expect(approve).not.toBe(review);
    // the duplicate arrived before the second gate existed: refused, naming it, and it stays pending
    const late = await duplicate.send();
    expect([late.status, late.json.error]).toEqual([409, "RESUME_MISMATCH"]);
    expect((late.json.details as { pending: string[] }).pending).toEqual([approve]);
    expect(await pending()).toEqual([approve]);
  });
});
