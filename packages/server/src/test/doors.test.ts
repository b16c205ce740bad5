/**
 * The server's doors, tried from outside through raw sockets against a server in a child process:
 * no request, header, upgrade or frame may crash it; bad ones get a 4xx; WebSocket messages obey the
 * body limit; cross-origin upgrades need an allowed origin; client errors log no stack trace.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import {
  answersOk,
  bodyOf,
  type ChildServer,
  clientFrame,
  completeAnswer,
  rawExchange,
  serverFrames,
  startChildServer,
  upgradeRequest,
} from "./raw-socket.js";

let s: ChildServer;
const KEY = { "x-api-key": "key-ana" };

// A fresh child when the last one died, so each test shows its own failure.
beforeEach(async () => {
  if (s?.alive()) return;
  await s?.stop();
  s = await startChildServer({ allowedOrigins: ["https://studio.example"] });
});
afterAll(async () => {
  await s?.stop();
});

/** Sends one raw request; the answer's status, JSON body, and whether the server is still up after. */
async function probe(request: string, timeoutMs = 3_000) {
  const answer = await rawExchange(s.port, request, { done: completeAnswer, timeoutMs });
  await new Promise((r) => setTimeout(r, 50));
  let json: { error?: string; message?: string } | undefined;
  try {
    json = JSON.parse(bodyOf(answer.bytes));
  } catch {
    json = undefined;
  }
  return { status: answer.status, json, up: s.alive() && (await answersOk(s.url)) };
}

/** Upgrades to `target`, sends `frames` once the 101 arrived, and reads until the server closes. */
async function afterUpgrade(target: string, frames: Buffer[], headers: Record<string, string> = KEY) {
  const answer = await rawExchange(s.port, upgradeRequest(target, headers), {
    timeoutMs: 3_000,
    after: (socket, bytes) => {
      if (/^HTTP\/1\.1 101/.test(bytes.toString("latin1"))) for (const f of frames) socket.write(f);
    },
    done: (bytes) => serverFrames(bytes).closeCode !== undefined,
  });
  await new Promise((r) => setTimeout(r, 50));
  return { status: answer.status, ...serverFrames(answer.bytes), up: s.alive() && (await answersOk(s.url)) };
}

describe("WebSocket upgrades cannot crash the server", () => {
  it("a malformed upgrade target is a 400 with a JSON error; the process stays up", async () => {
    for (const target of [
      "/apps/%E0%A4%A/ws",
      "http://[zz/ws",
      "/ag-ui/%E0%A4%A/ws",
      "/ag-ui/%/ws",
      "*",
      "127.0.0.1:80",
      "http://127.0.0.1/apps/%FF/ws",
    ]) {
      const r = await probe(upgradeRequest(target, KEY));
      expect([target, r.status, r.json?.error, r.up]).toEqual([target, 400, "INVALID_ARGUMENT", true]);
    }
  });

  it("an upgrade to a path nobody serves is a 404, an upgrade that is not a WebSocket a 400", async () => {
    expect((await probe(upgradeRequest("/nowhere/ws", KEY))).status).toBe(404);
    expect((await probe(upgradeRequest("/ag-ui/ghost/ws", KEY))).status).toBe(404);
    expect((await probe(upgradeRequest("/apps/ghost/ws", KEY))).status).toBe(404);
    const h2c = "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";
    const r = await probe(h2c);
    expect([r.status, r.up]).toEqual([400, true]);
  });

  it("credentials in the query that are not header values are no credentials (401)", async () => {
    for (const query of ["?token=%FF", "?api_key=%E2%82%AC", "?token=a%0Ab"]) {
      const r = await probe(upgradeRequest(`/ag-ui/chat/ws${query}`));
      expect([query, r.status, r.up]).toEqual([query, 401, true]);
    }
  });

  it("an app's upgrade handler that throws, now or later, cannot kill the process", async () => {
    for (const target of ["/apps/crashy/now", "/apps/crashy/later"]) {
      const r = await probe(upgradeRequest(target, KEY));
      expect([target, r.status, r.up]).toEqual([target, 500, true]);
    }
  });

  it("an upgrade handler failing on every upgrade writes at most 10 lines a minute, not one each", async () => {
    const failures = () =>
      s
        .stderr()
        .split("\n")
        .filter((l) => l.includes('"event":"upgrade-failed"')).length;
    for (let i = 0; i < 15; i++) {
      const r = await probe(upgradeRequest("/apps/crashy/now", KEY));
      expect(r.status).toBe(500);
    }
    expect(failures()).toBeGreaterThan(0);
    expect(failures()).toBeLessThanOrEqual(10);
  });

  it("bad handshakes (key, version) are 400s from the WebSocket layer", async () => {
    const bad = (headers: string) =>
      probe(
        `GET /ag-ui/chat/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nx-api-key: key-ana\r\n${headers}\r\n`,
      );
    for (const headers of [
      "Sec-WebSocket-Version: 13\r\n",
      "Sec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 99\r\n",
    ]) {
      const answer = await bad(headers);
      expect([headers, answer.status, answer.up]).toEqual([headers, 400, true]);
    }
  });

  it("garbage frames after a valid upgrade close the socket (1002, 1007); the process stays up", async () => {
    const garbage: Array<[Buffer, number]> = [
      [clientFrame(0x1, Buffer.from("hello"), { mask: false }), 1002], // clients must mask
      [clientFrame(0xf, Buffer.from("x")), 1002], // no such opcode
      [clientFrame(0x1, Buffer.from("x"), { rsv: 3 }), 1002], // no extension negotiated
      [clientFrame(0x9, Buffer.alloc(200)), 1002], // a ping longer than 125 bytes
      [clientFrame(0x0, Buffer.from("x")), 1002], // a continuation of nothing
      [clientFrame(0x1, Buffer.from([0xff, 0xfe, 0xfd])), 1007], // text that is not UTF-8
    ];
    for (const target of ["/ag-ui/chat/ws", "/apps/tutor/echo"]) {
      for (const [frame, code] of garbage) {
        const r = await afterUpgrade(target, [frame]);
        expect([target, r.status, r.closeCode, r.up]).toEqual([target, 101, code, true]);
      }
    }
  });
});

describe("WebSocket messages obey the body limit", () => {
  it("a message over limits.bodyBytes closes with 1009 and nothing is stored", async () => {
    const threadId = randomUUID();
    const input = JSON.stringify({
      threadId,
      runId: randomUUID(),
      messages: [{ id: "m1", role: "user", content: "x".repeat(70 * 1024) }],
    });
    const big = await afterUpgrade("/ag-ui/chat/ws", [clientFrame(0x1, Buffer.from(input))]);
    expect([big.status, big.closeCode, big.up]).toEqual([101, 1009, true]);
    const thread = await fetch(`${s.url}/threads/${threadId}`, { headers: KEY });
    expect(thread.status).toBe(404);
    // the app's own WebSocket gets the same limit
    const app = await afterUpgrade("/apps/tutor/echo", [clientFrame(0x1, Buffer.alloc(70 * 1024, 0x61))]);
    expect([app.status, app.closeCode, app.up]).toEqual([101, 1009, true]);
    // a fragmented message counts as a whole
    const parts = [
      clientFrame(0x1, Buffer.alloc(40 * 1024, 0x61), { fin: false }),
      clientFrame(0x0, Buffer.alloc(40 * 1024, 0x61)),
    ];
    const fragmented = await afterUpgrade("/apps/tutor/echo", parts);
    expect([fragmented.closeCode, fragmented.up]).toEqual([1009, true]);
    // under the limit, the app answers
    const small = await afterUpgrade("/apps/tutor/echo", [
      clientFrame(0x1, Buffer.from("hi")),
      clientFrame(0x8, Buffer.from([0x03, 0xe8])),
    ]);
    expect(small.texts.map((t) => JSON.parse(t))).toEqual([{ user: "ana", echo: "hi" }]);
  });
});

describe("the Origin of WebSocket upgrades", () => {
  it("with auth on, cross-origin upgrades are refused (403) unless the origin is allowed", async () => {
    const up = (origin?: string, headers: Record<string, string> = KEY) =>
      probe(upgradeRequest("/apps/tutor/echo", { ...headers, ...(origin ? { Origin: origin } : {}) }));
    expect((await up("https://evil.example")).status).toBe(403);
    expect((await up("null")).status).toBe(403);
    expect((await up("https://studio.example.evil.example")).status).toBe(403);
    expect((await up("https://studio.example")).status).toBe(101);
    expect((await up("http://127.0.0.1")).status).toBe(101); // same origin as the Host
    expect((await up()).status).toBe(101); // no Origin: not a browser
    expect((await up("https://studio.example", {})).status).toBe(401); // an allowed origin still needs credentials
    const forbidden = await probe(upgradeRequest("/ag-ui/chat/ws", { ...KEY, Origin: "https://evil.example" }));
    expect([forbidden.status, forbidden.json?.error]).toEqual([403, "FORBIDDEN"]);
  });
});

describe("malformed paths over HTTP", () => {
  it("are a 400 with a JSON error, with or without credentials, and log no stack trace", async () => {
    const before = s.stderr().length;
    for (const [path, headers] of [
      ["/threads/%E0%A4%A", "x-api-key: key-ana\r\n"],
      ["/threads/%E0%A4%A/state", ""],
      ["/%", ""],
      ["/apps/tutor/%FF", "x-api-key: key-ana\r\n"],
    ] as const) {
      const r = await probe(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`);
      expect([path, r.status, r.json?.error, r.up]).toEqual([path, 400, "INVALID_ARGUMENT", true]);
    }
    for (const target of ["http://[zz/ok", "http://127.0.0.1\\x/ok"]) {
      const r = await probe(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      expect([target, r.status, r.json?.error]).toEqual([target, 400, "INVALID_ARGUMENT"]);
    }
    // a malformed request after a good one on a keep-alive connection is answered too
    const pipelined = await rawExchange(s.port, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n", {
      after: (socket) => socket.write("G@T / HTTP/1.1\r\n\r\n"),
      done: (b) => (b.toString("latin1").match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= 2 && completeAnswer(b),
    });
    expect(pipelined.bytes.toString("latin1").match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 400"]);
    expect(pipelined.bytes.toString("latin1")).toContain('"error":"INVALID_ARGUMENT"');
    await new Promise((r) => setTimeout(r, 100));
    expect(s.stderr().slice(before)).not.toMatch(/\n\s+at /);
  });
});
