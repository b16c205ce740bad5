/**
 * A raw-socket fuzzer of the server's doors, against a server in a child process (auth on, apps with
 * WebSockets, body limit 64 KiB): malformed request lines, paths with bad percent-escapes, absolute-
 * and authority-form targets, huge, duplicate and invalid headers, bodies, upgrade requests with bad
 * keys, versions and paths, and garbage WebSocket frames after a valid upgrade. After every case the
 * process must still be up (`GET /ok` answers 200), and an answer, when there is one, must come within
 * the bound and be below 500. Client errors must log no stack trace.
 *
 * `DOOR_FUZZ_RUNS` scales the number of cases (default: 250 HTTP requests and 120 WebSocket sessions).
 */
import fc from "fast-check";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { mayWait, request } from "./door-fuzz-requests.js";
import {
  answersOk,
  bodyOf,
  type ChildServer,
  clientFrame,
  completeAnswer,
  rawExchange,
  startChildServer,
  statusOf,
  upgradeRequest,
} from "./raw-socket.js";
import { expectNoServerError, sqlCase } from "./sql-fuzz-cases.js";

const RUNS = Number(process.env.DOOR_FUZZ_RUNS ?? 250);
/** An answer (its status line) must arrive within this bound. */
const ANSWER_MS = 2_000;

let s: ChildServer;
const seen = new Map<string, number>();

// A fresh child when the last one died, so each test shows its own failure.
beforeEach(async () => {
  if (s?.alive()) return;
  await s?.stop();
  s = await startChildServer({ allowedOrigins: ["https://studio.example"] });
});
afterAll(async () => {
  await s?.stop();
  console.log(`door fuzzer answers: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
  if (process.env.DOOR_FUZZ_LOG) console.log(s?.stderr());
});

function record(status: number | undefined, end: string): void {
  const key = status === undefined ? `no answer (${end})` : String(status);
  seen.set(key, (seen.get(key) ?? 0) + 1);
}

describe("raw-socket fuzzer", () => {
  it("no HTTP request crashes the server or gets a 5xx", { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (raw) => {
        const answer = await rawExchange(s.port, raw, {
          timeoutMs: ANSWER_MS,
          done: (bytes) => bytes.includes("\r\n"),
        });
        record(answer.status, answer.end);
        const up = s.alive() && (await answersOk(s.url));
        const sample = raw.subarray(0, 200).toString("latin1");
        expect(up, `server down after ${JSON.stringify(sample)}`).toBe(true);
        if (answer.status !== undefined) {
          expect(answer.status, `answer to ${JSON.stringify(sample)}`).toBeLessThan(500);
        } else if (!mayWait(raw)) {
          // no answer: only a CONNECT (which Node closes when nobody serves it), and never a hang
          expect(answer.end, `hang on ${JSON.stringify(sample)}`).toBe("closed");
          expect(sample, "every request but CONNECT gets an answer").toMatch(/^CONNECT /);
        }
      }),
      // a crash ends the run at once: shrinking against a dead server would say nothing
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  // the run's user is the server's: a body naming one (a reserved key), wherever it sits and however the
  // body is framed, is a 400 naming the key, on every door that takes a run's config
  const forged = fc.record({
    door: fc.constantFrom(
      "/threads/t-forged/runs",
      "/threads/t-forged/runs/wait",
      "/threads/t-forged/runs/stream",
      "/runs",
      "/runs/wait",
      "/runs/stream",
      "/runs/crons",
      "/threads/t-forged/runs/crons",
      "/assistants",
      "/ag-ui/chat",
    ),
    key: fc.constantFrom("user_id", "langgraph_auth_user", "langgraph_auth_user_id", "langgraph_auth_permissions"),
    place: fc.constantFrom("configurable", "context"),
    value: fc.oneof(
      fc.constant("bo"),
      fc.constant(null),
      fc.string({ maxLength: 8 }),
      fc.array(fc.string(), { maxLength: 2 }),
    ),
    chunked: fc.boolean(),
  });
  const forgedBody = (f: { door: string; key: string; place: string; value: unknown }): string => {
    const where = { [f.key]: f.value };
    if (f.door === "/ag-ui/chat") {
      const props = f.place === "configurable" ? { configurable: where } : { context: where };
      return JSON.stringify({
        threadId: "t-forged-ag",
        runId: `r-${Math.random()}`,
        messages: [],
        forwardedProps: props,
      });
    }
    const own = f.place === "configurable" ? { config: { configurable: where } } : { context: where };
    const base = f.door === "/assistants" ? { graph_id: "slow" } : { assistant_id: "slow", input: {} };
    const cron = f.door.endsWith("/crons") ? { schedule: "* * * * *" } : {};
    return JSON.stringify({ ...base, ...cron, ...own });
  };

  it("a body naming the run's user is a 400 naming the key, on every door", { timeout: 60_000 }, async () => {
    // the thread the thread-scoped doors name exists (a missing one would be a 404 first)
    const made = await fetch(`${s.url}/threads`, {
      method: "POST",
      headers: { "x-api-key": "key-ana", "content-type": "application/json" },
      body: JSON.stringify({ thread_id: "t-forged", if_exists: "do_nothing" }),
    });
    expect(made.status).toBe(200);
    await fc.assert(
      fc.asyncProperty(forged, async (f) => {
        const text = forgedBody(f);
        const head = [
          `POST ${f.door} HTTP/1.1`,
          "Host: 127.0.0.1",
          "x-api-key: key-ana",
          "Content-Type: application/json",
        ];
        const framed = f.chunked
          ? `${[...head, "Transfer-Encoding: chunked"].join("\r\n")}\r\n\r\n${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n0\r\n\r\n`
          : `${[...head, `Content-Length: ${Buffer.byteLength(text)}`].join("\r\n")}\r\n\r\n${text}`;
        const answer = await rawExchange(s.port, framed, { timeoutMs: ANSWER_MS * 2, done: completeAnswer });
        record(answer.status, "forged");
        expect([f.door, answer.status]).toEqual([f.door, 400]);
        expect(bodyOf(answer.bytes)).toContain(f.key);
      }),
      { numRuns: Math.ceil(RUNS / 5), endOnFailure: true },
    );
  });

  const opcode = fc.oneof(fc.constantFrom(0x0, 0x1, 0x2, 0x8, 0x9, 0xa), fc.integer({ min: 0, max: 15 }));
  const frame = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          opcode,
          payload: fc.oneof(
            fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
            fc
              .constantFrom(
                "{}",
                "not json",
                '{"threadId":"t1","runId":"r1","messages":[{"id":"m","role":"user","content":"hi"}]}',
                '{"threadId":1}',
                `${"[".repeat(2000)}`,
              )
              .map((t) => Buffer.from(t)),
            fc.constantFrom(70 * 1024, 300).map((n) => Buffer.alloc(n, 0x61)),
          ),
          fin: fc.boolean(),
          mask: fc.boolean(),
          rsv: fc.constantFrom(0, 0, 0, 1, 4, 7),
          lie: fc.constantFrom(undefined, undefined, 0, 125, 126, 65_535, 2 ** 40),
        })
        .map((f) =>
          clientFrame(f.opcode, f.payload, {
            fin: f.fin,
            mask: f.mask || f.opcode === 0x1,
            rsv: f.rsv,
            ...(f.lie !== undefined ? { length: f.lie } : {}),
          }),
        ),
    },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b)) },
  );
  const session = fc.record({
    target: fc.constantFrom("/ag-ui/chat/ws", "/ag-ui/ask/ws", "/apps/tutor/echo"),
    frames: fc.array(frame, { minLength: 1, maxLength: 4 }),
  });

  it("no WebSocket frame after a valid upgrade crashes the server", { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(session, async ({ target, frames }) => {
        let upgraded = false;
        const answer = await rawExchange(s.port, upgradeRequest(target, { "x-api-key": "key-ana" }), {
          timeoutMs: ANSWER_MS,
          after: (socket, bytes) => {
            upgraded = statusOf(bytes) === 101;
            if (upgraded) for (const f of frames) socket.write(f);
            // what the server does with the frames shows within 150 ms: then hang up
            setTimeout(() => socket.destroy(), 150);
          },
        });
        record(answer.status, "ws");
        expect(answer.status).toBe(101);
        expect(upgraded).toBe(true);
        const up = s.alive() && (await answersOk(s.url));
        expect(up, `server down after frames ${frames.map((f) => f.subarray(0, 16).toString("hex")).join(" ")}`).toBe(
          true,
        );
      }),
      { numRuns: Math.ceil(RUNS / 2), endOnFailure: true },
    );
  });

  // answers to a pause, in every shape a client may send them, by its owner, another user and an operator
  const resumeValue = fc.oneof(
    fc.constantFrom(true, false, null, "", "ok", 0, [], {}, { decisions: [] }),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const resume = fc.oneof(
    resumeValue.map((value) => ({ resume: value })),
    fc
      .tuple(fc.constantFrom("REAL", "nope", "", "__proto__"), resumeValue)
      .map(([id, value]) => ({ resume: { [id]: value } })),
    fc
      .array(fc.record({ type: fc.constantFrom("approve", "edit", "reject", "respond", "x"), message: fc.string() }), {
        maxLength: 3,
      })
      .map((decisions) => ({ resume: { decisions } })),
  );
  const answer = fc.record({
    user: fc.constantFrom("key-ana", "key-ana", "key-bo", "key-ops"),
    command: resume,
    strategy: fc.constantFrom(undefined, "enqueue", "reject", "interrupt", "rollback"),
    checkpoint: fc.constantFrom(undefined, "bogus", "00000000-0000-0000-0000-000000000000"),
    chunked: fc.boolean(),
  });

  it("an answer to a pause, whatever its shape: no 5xx, only its owner's applies, and to one pause at most", {
    timeout: 90_000,
  }, async () => {
    const call = async (path: string, key: string, payload?: unknown) => {
      const res = await fetch(`${s.url}${path}`, {
        method: payload === undefined ? "GET" : "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    const pendingOf = async (threadId: string) =>
      ((await call(`/threads/${threadId}/state`, "key-ana")).interrupts as Array<{ id: string }>).map((i) => i.id);
    await fc.assert(
      fc.asyncProperty(answer, async (a) => {
        const threadId = (await call("/threads", "key-ana", {})).thread_id as string;
        await call(`/threads/${threadId}/runs/wait`, "key-ana", {
          assistant_id: "approval-flow",
          input: { request: "r" },
        });
        const [review] = await pendingOf(threadId);
        expect(review).toBeTruthy();
        const command = JSON.parse(JSON.stringify(a.command).replaceAll('"REAL"', JSON.stringify(review)));
        const text = JSON.stringify({
          assistant_id: "approval-flow",
          command,
          ...(a.strategy ? { multitask_strategy: a.strategy } : {}),
          ...(a.checkpoint ? { checkpoint_id: a.checkpoint } : {}),
        });
        const head = [`POST /threads/${threadId}/runs/wait HTTP/1.1`, "Host: 127.0.0.1", `x-api-key: ${a.user}`];
        head.push("Content-Type: application/json");
        const framed = a.chunked
          ? `${[...head, "Transfer-Encoding: chunked"].join("\r\n")}\r\n\r\n${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n0\r\n\r\n`
          : `${[...head, `Content-Length: ${Buffer.byteLength(text)}`].join("\r\n")}\r\n\r\n${text}`;
        const got = await rawExchange(s.port, framed, { timeoutMs: ANSWER_MS * 5, done: completeAnswer });
        record(got.status, "resume");
        expect(got.status, bodyOf(got.bytes)).toBeDefined();
        expect(got.status, bodyOf(got.bytes)).toBeLessThan(500);
        const after = await pendingOf(threadId);
        if (a.user !== "key-ana") {
          // not theirs: a 404 that names no interrupt, and the pause still waits for its owner
          expect(got.status).toBe(404);
          expect(bodyOf(got.bytes)).not.toContain(review);
          expect(after).toEqual([review]);
        } else {
          // one answer answers one pause at most: the thread waits at its first or its second gate, never past both
          expect(after.length).toBe(1);
        }
      }),
      { numRuns: Math.ceil(RUNS / 10), endOnFailure: true },
    );
  });

  it("no valid JSON that reaches SQL gets a 5xx", { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(sqlCase, async (c) => {
        record(await expectNoServerError(s, c), "json");
      }),
      { numRuns: Math.ceil(RUNS / 2), endOnFailure: true },
    );
  });

  it("client errors log no stack trace (a server of its own, sent the fuzzer's nastiest requests)", async () => {
    const own = await startChildServer({ allowedOrigins: ["https://studio.example"] });
    try {
      const requests = [
        "GET /threads/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: key-ana\r\n\r\n",
        "GET http://a@b/ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        "GET /ok HTTP/1.1\r\nHost: [zz\r\n\r\n",
        "G E T / HTTP/1.1\r\n\r\n",
        `POST /threads HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: key-ana\r\nContent-Length: 9\r\n\r\n{not json`,
        upgradeRequest("/ag-ui/chat/ws", { "x-api-key": "key-ana", "Sec-WebSocket-Version": "8" }),
      ];
      for (const raw of requests) {
        const answer = await rawExchange(own.port, raw, { timeoutMs: ANSWER_MS, done: (b) => b.includes("\r\n\r\n") });
        expect(answer.status ?? 400, raw.slice(0, 60)).toBeLessThan(500);
      }
      const json: Array<[string, string, unknown]> = [
        [
          "POST",
          "/threads/search",
          { metadata: Object.fromEntries(Array.from({ length: 999 }, (_, i) => [`k${i}`, i])) },
        ],
        ["POST", "/threads", { metadata: { a: "\u0000" } }],
        ["PUT", "/store/items", { namespace: ["a"], key: "k", value: { a: 1 }, ttl: 2e14 }],
        ["POST", "/runs/crons", { assistant_id: "ask", schedule: "0 9 * * *\n" }],
      ];
      for (const [method, path, body] of json) {
        const res = await fetch(`${own.url}${path}`, {
          method,
          headers: { "content-type": "application/json", "x-api-key": "key-ana" },
          body: JSON.stringify(body),
        });
        expect(res.status, path).toBe(400);
      }
      expect(own.alive()).toBe(true);
      expect(own.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      await own.stop();
    }
  });
});
