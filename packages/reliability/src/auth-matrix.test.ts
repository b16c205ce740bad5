import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./fixtures/test-server.js";

const ANA = { "x-api-key": "key-ana" };
const BO = { authorization: "Bearer tok-bo" };
const WRONG = { "x-api-key": "key-nobody" };
const OPS = { "x-api-key": "key-ops" };

/**
 * Who may call a route:
 * - `public`: anyone (liveness);
 * - `user`: any authenticated user (assistants, search, thread creation, stateless runs);
 * - `owner`: only the owner of the thread (or assistant) it names — another user gets 404 as if it did not exist;
 * - `app-own`: an application route that authenticates itself (routesAuth "app").
 *
 * An operator (a credential with `role: "operator"`) may also call the `owner` routes marked `operator`
 * on another user's thread, run or cron — those that list, read, stop and delete — and gets 404 on the
 * others, as any user does.
 */
type Access = "public" | "user" | "owner" | "app-own";

interface Fixture {
  T: string;
  R: string;
  cp: string;
  /** An assistant of ana's (made with POST /assistants). */
  A: string;
  /** A cron of ana's on her thread. */
  C: string;
}

interface RouteCase {
  access: Access;
  path: (f: Fixture) => string;
  body?: (f: Fixture) => unknown;
  /** Statuses the owner (or any user) may get besides 2xx, e.g. a 404 for a missing subgraph. */
  ok?: number[];
  /** An operator may call it on another user's thread, run or cron (`owner` routes only). */
  operator?: true;
  headers?: Record<string, string>;
}

const uuid = () => crypto.randomUUID();
/** A cron that would first fire next New Year: the matrix tests who may see and change it, not its runs. */
const YEARLY = { assistant_id: "echo", schedule: "0 0 1 1 *" };

/** Every route the server has, keyed `METHOD path` exactly as Hono lists them. */
const ROUTES: Record<string, RouteCase> = {
  "GET /ok": { access: "public", path: () => "/ok" },
  "GET /info": { access: "user", path: () => "/info" },
  "GET /metrics": { access: "user", path: () => "/metrics" },
  "POST /assistants": {
    access: "user",
    path: () => "/assistants",
    body: () => ({ graph_id: "ask", assistant_id: "ask", if_exists: "do_nothing" }),
  },
  "PATCH /assistants/:assistant_id": {
    access: "owner",
    path: (f) => `/assistants/${f.A}`,
    body: () => ({ metadata: { a: 1 } }),
  },
  "DELETE /assistants/:assistant_id": { access: "owner", path: (f) => `/assistants/${f.A}` },
  "POST /assistants/:assistant_id/versions": {
    access: "owner",
    path: (f) => `/assistants/${f.A}/versions`,
    body: () => ({}),
  },
  "POST /assistants/:assistant_id/latest": {
    access: "owner",
    path: (f) => `/assistants/${f.A}/latest`,
    body: () => ({ version: 1 }),
  },
  "POST /assistants/search": { access: "user", path: () => "/assistants/search", body: () => ({}) },
  "POST /assistants/count": { access: "user", path: () => "/assistants/count", body: () => ({}) },
  "GET /assistants/:assistant_id": { access: "user", path: () => "/assistants/ask" },
  "GET /assistants/:assistant_id/graph": { access: "user", path: () => "/assistants/ask/graph" },
  "GET /assistants/:assistant_id/schemas": { access: "user", path: () => "/assistants/ask/schemas" },
  "GET /assistants/:assistant_id/subgraphs": { access: "user", path: () => "/assistants/ask/subgraphs" },
  "GET /assistants/:assistant_id/subgraphs/:namespace": {
    access: "user",
    path: () => "/assistants/ask/subgraphs/none",
    ok: [404],
  },
  "POST /threads": { access: "user", path: () => "/threads", body: () => ({}) },
  "POST /threads/search": { access: "user", path: () => "/threads/search", body: () => ({}) },
  "POST /threads/count": { access: "user", path: () => "/threads/count", body: () => ({}) },
  "POST /runs": { access: "user", path: () => "/runs", body: () => ({ assistant_id: "echo", input: { data: 1 } }) },
  "POST /runs/wait": { access: "user", path: () => "/runs/wait", body: () => ({ assistant_id: "echo", input: {} }) },
  "POST /runs/stream": {
    access: "user",
    path: () => "/runs/stream",
    body: () => ({ assistant_id: "echo", input: {} }),
  },
  "POST /ag-ui/:assistant_id": {
    access: "user",
    path: () => "/ag-ui/echo",
    body: () => ({ threadId: uuid(), runId: uuid(), messages: [], state: { data: 1 } }),
  },
  "GET /apps/app-server/whoami": { access: "user", path: () => "/apps/app-server/whoami" },
  "POST /apps/app-own/hook": { access: "app-own", path: () => "/apps/app-own/hook", body: () => ({}) },
  // the Store API: any user, each in their own namespaces (another user's items are simply not there)
  "PUT /store/items": {
    access: "user",
    path: () => "/store/items",
    body: () => ({ namespace: ["matrix"], key: "k", value: { a: 1 } }),
  },
  "GET /store/items": { access: "user", path: () => "/store/items?namespace=matrix&key=k" },
  "POST /store/items/search": { access: "user", path: () => "/store/items/search", body: () => ({}) },
  "POST /store/namespaces": { access: "user", path: () => "/store/namespaces", body: () => ({}) },
  "DELETE /store/items": {
    access: "user",
    path: () => "/store/items",
    body: () => ({ namespace: ["matrix"], key: "k" }),
  },
  "POST /runs/batch": {
    access: "user",
    path: () => "/runs/batch",
    body: () => [{ assistant_id: "echo", input: { data: 7 } }],
  },
  "POST /runs/crons": { access: "user", path: () => "/runs/crons", body: () => ({ ...YEARLY, input: { data: 5 } }) },
  "POST /runs/crons/search": { access: "user", path: () => "/runs/crons/search", body: () => ({}) },
  "POST /runs/crons/count": { access: "user", path: () => "/runs/crons/count", body: () => ({}) },
  "POST /threads/:thread_id/runs/crons": {
    access: "owner",
    path: (f) => `/threads/${f.T}/runs/crons`,
    body: () => ({ ...YEARLY, input: { data: 6 } }),
  },
  "GET /runs/crons/:cron_id": { access: "owner", operator: true, path: (f) => `/runs/crons/${f.C}` },
  "PATCH /runs/crons/:cron_id": {
    access: "owner",
    path: (f) => `/runs/crons/${f.C}`,
    body: () => ({ schedule: "0 0 2 1 *" }),
  },
  "DELETE /runs/crons/:cron_id": { access: "owner", operator: true, path: (f) => `/runs/crons/${f.C}` },
  "GET /threads/:thread_id": { access: "owner", operator: true, path: (f) => `/threads/${f.T}` },
  "PATCH /threads/:thread_id": {
    access: "owner",
    path: (f) => `/threads/${f.T}`,
    body: () => ({ metadata: { a: 1 } }),
  },
  "GET /threads/:thread_id/state": { access: "owner", operator: true, path: (f) => `/threads/${f.T}/state` },
  "GET /threads/:thread_id/state/:checkpoint_id": { access: "owner", path: (f) => `/threads/${f.T}/state/${f.cp}` },
  "POST /threads/:thread_id/state/checkpoint": {
    access: "owner",
    path: (f) => `/threads/${f.T}/state/checkpoint`,
    body: (f) => ({ checkpoint: { checkpoint_id: f.cp } }),
  },
  "POST /threads/:thread_id/state": {
    access: "owner",
    path: (f) => `/threads/${f.T}/state`,
    body: () => ({ values: { data: "edited" } }),
  },
  "POST /threads/:thread_id/history": {
    access: "owner",
    operator: true,
    path: (f) => `/threads/${f.T}/history`,
    body: () => ({}),
  },
  "POST /threads/:thread_id/copy": { access: "owner", path: (f) => `/threads/${f.T}/copy`, body: () => ({}) },
  "GET /threads/:thread_id/stream": { access: "owner", path: (f) => `/threads/${f.T}/stream`, ok: [404] },
  "GET /threads/:thread_id/runs": { access: "owner", operator: true, path: (f) => `/threads/${f.T}/runs` },
  "POST /threads/:thread_id/runs": {
    access: "owner",
    path: (f) => `/threads/${f.T}/runs`,
    body: () => ({ assistant_id: "echo", input: { data: 2 }, multitask_strategy: "enqueue" }),
  },
  "POST /threads/:thread_id/runs/wait": {
    access: "owner",
    path: (f) => `/threads/${f.T}/runs/wait`,
    body: () => ({ assistant_id: "echo", input: { data: 3 }, multitask_strategy: "enqueue" }),
  },
  "POST /threads/:thread_id/runs/stream": {
    access: "owner",
    path: (f) => `/threads/${f.T}/runs/stream`,
    body: () => ({ assistant_id: "echo", input: { data: 4 }, multitask_strategy: "enqueue" }),
  },
  "GET /threads/:thread_id/runs/:run_id": {
    access: "owner",
    operator: true,
    path: (f) => `/threads/${f.T}/runs/${f.R}`,
  },
  "GET /threads/:thread_id/runs/:run_id/join": {
    access: "owner",
    operator: true,
    path: (f) => `/threads/${f.T}/runs/${f.R}/join`,
  },
  "GET /threads/:thread_id/runs/:run_id/stream": {
    access: "owner",
    operator: true,
    path: (f) => `/threads/${f.T}/runs/${f.R}/stream`,
  },
  "GET /runs/:run_id/stream": { access: "owner", operator: true, path: (f) => `/runs/${f.R}/stream` },
  "POST /threads/:thread_id/runs/:run_id/cancel": {
    access: "owner",
    operator: true,
    path: (f) => `/threads/${f.T}/runs/${f.R}/cancel`,
  },
  "DELETE /threads/:thread_id/runs/:run_id": {
    access: "owner",
    operator: true,
    path: (f) => `/threads/${f.T}/runs/${f.R}`,
  },
  "DELETE /threads/:thread_id": { access: "owner", operator: true, path: (f) => `/threads/${f.T}` },
};

let t: TestServer;
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

const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  t.call(method, path, { headers, ...(body !== undefined ? { body } : {}) });

/** A thread of ana's with a finished run, a checkpoint and a cron, and an assistant of hers. */
async function anasThread(): Promise<Fixture> {
  const A = ((await call("POST", "/assistants", ANA, { graph_id: "echo" })).json as { assistant_id: string })
    .assistant_id;
  const T = ((await call("POST", "/threads", ANA, {})).json as { thread_id: string }).thread_id;
  const run = await call("POST", `/threads/${T}/runs`, ANA, { assistant_id: "echo", input: { data: 0 } });
  const R = (run.json as { run_id: string }).run_id;
  await call("GET", `/threads/${T}/runs/${R}/join`, ANA);
  const state = (await call("GET", `/threads/${T}/state`, ANA)).json as { checkpoint: { checkpoint_id: string } };
  const C = (
    (await call("POST", `/threads/${T}/runs/crons`, ANA, { ...YEARLY, input: { data: 1 } })).json as {
      cron_id: string;
    }
  ).cron_id;
  return { T, R, cp: state.checkpoint.checkpoint_id, A, C };
}

describe("authorization on every route of the server", () => {
  it("the matrix names every route the server serves, and no route it does not", () => {
    const served = new Set(t.server.app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`));
    expect([...served].sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it("no or unknown credentials: 401 on every route but /ok; another user's thread or run: 404; the owner: 2xx", async () => {
    const f = await anasThread();
    const history = async () => (await call("POST", `/threads/${f.T}/history`, ANA, { limit: 100 })).text;
    const before = await history();
    const counts = { unauthorized: 0, hidden: 0, allowed: 0 };
    const ordered = Object.entries(ROUTES).sort(
      ([a], [b]) => Number(a.startsWith("DELETE")) - Number(b.startsWith("DELETE")),
    );
    for (const [name, route] of ordered) {
      const method = name.split(" ")[0] as string;
      const path = route.path(f);
      const body = route.body?.(f);
      for (const who of [{}, WRONG]) {
        const res = await call(method, path, who, body);
        if (route.access === "public") expect([name, res.status]).toEqual([name, 200]);
        else {
          expect([name, res.status]).toEqual([name, 401]);
          if (route.access !== "app-own") expect((res.json as { error: string }).error).toBe("UNAUTHORIZED");
          counts.unauthorized++;
        }
      }
      if (route.access === "owner") {
        const other = await call(method, path, BO, body);
        expect([name, other.status, (other.json as { error?: string })?.error]).toEqual([name, 404, "NOT_FOUND"]);
        counts.hidden++;
      }
    }
    // Nothing the refused requests asked for happened.
    expect(await history()).toBe(before);
    expect(((await call("GET", `/threads/${f.T}/runs`, ANA)).json as unknown[]).length).toBe(1);

    for (const [name, route] of ordered) {
      const method = name.split(" ")[0] as string;
      const headers = route.access === "app-own" ? { "x-hook-secret": "s3cret" } : ANA;
      const res = await call(method, route.path(f), headers, route.body?.(f));
      const ok = (res.status >= 200 && res.status < 300) || (route.ok ?? []).includes(res.status);
      expect([name, res.status, ok]).toEqual([name, res.status, true]);
      counts.allowed++;
      if (route.access === "user") {
        const asBo = await call(method, route.path(f), BO, route.body?.(f));
        expect([name, (asBo.status >= 200 && asBo.status < 300) || (route.ok ?? []).includes(asBo.status)]).toEqual([
          name,
          true,
        ]);
      }
    }
    expect((await call("GET", `/threads/${f.T}`, ANA)).status).toBe(404); // deleted last, by its owner
    console.log(
      `[reliability] auth matrix: ${Object.keys(ROUTES).length} routes; ${counts.unauthorized} anonymous or bad-credential calls answered 401, ${counts.hidden} calls on another user's thread answered 404, ${counts.allowed} owner calls allowed`,
    );
  });

  it("an operator lists, reads, stops and deletes another user's threads, runs and crons; never acts on them", async () => {
    const f = await anasThread();
    const found = (await call("POST", "/threads/search", OPS, { limit: 1000 })).json as { thread_id: string }[];
    expect(found.map((x) => x.thread_id)).toContain(f.T);
    const crons = (await call("POST", "/runs/crons/search", OPS, { limit: 1000 })).json as { cron_id: string }[];
    expect(crons.map((x) => x.cron_id)).toContain(f.C);
    const ordered = Object.entries(ROUTES)
      .filter(([, route]) => route.access === "owner")
      .sort(([a], [b]) => Number(a.startsWith("DELETE")) - Number(b.startsWith("DELETE")));
    let allowed = 0;
    for (const [name, route] of ordered) {
      const method = name.split(" ")[0] as string;
      const res = await call(method, route.path(f), OPS, route.body?.(f));
      if (route.operator) {
        const ok = (res.status >= 200 && res.status < 300) || (route.ok ?? []).includes(res.status);
        expect([name, res.status, ok]).toEqual([name, res.status, true]);
        allowed++;
      } else {
        expect([name, res.status, (res.json as { error?: string })?.error]).toEqual([name, 404, "NOT_FOUND"]);
      }
    }
    expect(allowed).toBe(13);
    expect((await call("GET", `/threads/${f.T}`, ANA)).status).toBe(404); // the operator deleted it
    expect((await call("GET", `/runs/crons/${f.C}`, ANA)).status).toBe(404);
  });

  it("search, count and app routes see the caller only", async () => {
    const f = await anasThread();
    const boSearch = (await call("POST", "/threads/search", BO, { limit: 100 })).json as { thread_id: string }[];
    expect(boSearch.map((x) => x.thread_id)).not.toContain(f.T);
    const anaSearch = (await call("POST", "/threads/search", ANA, { limit: 100 })).json as { thread_id: string }[];
    expect(anaSearch.map((x) => x.thread_id)).toContain(f.T);
    expect((await call("GET", "/apps/app-server/whoami", BO)).json).toEqual({ user: "bo" });
    // AG-UI on another user's thread is hidden too.
    const agui = await call("POST", "/ag-ui/echo", BO, { threadId: f.T, runId: uuid(), messages: [] });
    expect([agui.status, (agui.json as { error: string }).error]).toEqual([404, "NOT_FOUND"]);
  });

  it("the AG-UI WebSocket upgrade needs credentials too", async () => {
    const { port } = await t.server.listen(0);
    /** The status line the server answers a WebSocket upgrade with (raw, as a browser would send it). */
    const upgrade = (query: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () => {
          socket.write(
            `GET /ag-ui/echo/ws${query} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
              "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
          );
        });
        let answer = "";
        socket.on("data", (chunk) => {
          answer += chunk;
          if (answer.includes("\r\n")) {
            socket.destroy();
            resolve(answer.slice(0, answer.indexOf("\r\n")));
          }
        });
        socket.on("error", reject);
        socket.on("close", () => resolve(answer || "(closed)"));
      });
    expect(await upgrade("")).toBe("HTTP/1.1 401 Unauthorized");
    expect(await upgrade("?api_key=key-nobody")).toBe("HTTP/1.1 401 Unauthorized");
    expect(await upgrade("?api_key=key-ana")).toBe("HTTP/1.1 101 Switching Protocols");
    expect(await upgrade("?token=tok-bo")).toBe("HTTP/1.1 101 Switching Protocols");
  });
});
