import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

let t: TestServer;
const ANA = { "x-api-key": "key-ana" };
const BO = { "x-api-key": "key-bo" };

beforeAll(async () => {
  t = await startTestServer({
    auth: {
      enabled: true,
      credentials: [
        { user: "ana", apiKey: "key-ana" },
        { user: "bo", apiKey: "key-bo" },
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
  return { status: res.status, text: await res.text() };
}

describe("thread answers", () => {
  it("the state at a checkpoint the thread does not have is a 404 CHECKPOINT_NOT_FOUND", async () => {
    const T = JSON.parse((await call("POST", "/threads", ANA, {})).text).thread_id as string;
    await call("POST", `/threads/${T}/runs/wait`, ANA, { assistant_id: "slow", input: { delayMs: 1 } });
    const head = JSON.parse((await call("GET", `/threads/${T}/state`, ANA)).text);
    const known = head.checkpoint.checkpoint_id as string;
    expect((await call("GET", `/threads/${T}/state/${known}`, ANA)).status).toBe(200);
    for (const res of [
      await call("GET", `/threads/${T}/state/1f000000-0000-6000-8000-000000000000`, ANA),
      await call("POST", `/threads/${T}/state/checkpoint`, ANA, { checkpoint: { checkpoint_id: "nope" } }),
    ]) {
      expect([res.status, JSON.parse(res.text).error]).toEqual([404, "CHECKPOINT_NOT_FOUND"]);
    }
    // a thread without any checkpoint has an empty state at its head, but no checkpoint by id
    const fresh = JSON.parse((await call("POST", "/threads", ANA, {})).text).thread_id as string;
    expect((await call("GET", `/threads/${fresh}/state`, ANA)).status).toBe(200);
    expect((await call("GET", `/threads/${fresh}/state/c1`, ANA)).status).toBe(404);
  });

  it("creating a thread whose id is taken answers the same whether the thread is the caller's or another's", async () => {
    const T = `taken-${Date.now()}`;
    expect((await call("POST", "/threads", ANA, { thread_id: T })).status).toBe(200);
    const own = await call("POST", "/threads", ANA, { thread_id: T });
    const foreign = await call("POST", "/threads", BO, { thread_id: T });
    expect(own.status).toBe(409);
    expect(foreign).toEqual(own); // same status, same body: ownership is not revealed
    // do_nothing gives the owner the thread; anyone else the same 409, never the thread
    expect((await call("POST", "/threads", ANA, { thread_id: T, if_exists: "do_nothing" })).status).toBe(200);
    expect(await call("POST", "/threads", BO, { thread_id: T, if_exists: "do_nothing" })).toEqual(own);
    // the other user still cannot see it
    expect((await call("GET", `/threads/${T}`, BO)).status).toBe(404);
  });
});
