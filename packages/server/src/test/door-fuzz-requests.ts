/**
 * The door fuzzer's raw HTTP requests (fast-check arbitraries): request lines with odd methods, targets
 * and versions, paths with bad percent-escapes, benign and nasty headers, bodies and framings.
 */
import fc from "fast-check";

const PREFIXES = [
  "",
  "/",
  "/ok",
  "/info",
  "/threads",
  "/threads/t1",
  "/threads/t1/state",
  "/threads/t1/state/c1",
  "/threads/t1/runs",
  "/threads/t1/runs/stream",
  "/threads/t1/runs/r1/stream",
  "/threads/search",
  "/threads/count",
  "/runs/batch",
  "/runs/crons",
  "/runs/crons/search",
  "/runs/crons/c1",
  "/store/items",
  "/runs/wait",
  "/runs/stream",
  "/assistants/search",
  "/assistants/slow/graph",
  "/ag-ui/chat",
  "/ag-ui/chat/ws",
  "/apps/tutor/hello",
  "/apps/tutor/echo",
  "/apps/ghost/ws",
  "/studio",
];
const NASTY_SEGMENTS = [
  "%",
  "%E0%A4%A",
  "%FF",
  "%C0%AF",
  "%00",
  "%2F",
  "%2e%2e",
  "..",
  ".",
  "",
  "%25",
  "%%30",
  "%u0041",
  "\\",
  "é",
  "\u{1F600}",
  "a?b=%E0",
  "x#frag",
  "?api_key=key-ana",
  "?token=%FF",
  ";a=b",
  "x".repeat(300),
];
const segment = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~:@!$&'()*+,;=-]{0,12}$/) },
);
const path = fc
  .tuple(fc.constantFrom(...PREFIXES), fc.array(segment, { maxLength: 3 }))
  .map(([prefix, rest]) => [prefix, ...rest].join("/").replace(/^(?!\/)/, "/"));
const host = fc.constantFrom("127.0.0.1", "[zz", "[::1]", "localhost:99999", "a@b", "", "%zz", "x y", "127.0.0.1:80");
const target = fc.oneof(
  { weight: 6, arbitrary: path },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom("http://", "https://", "ws://", "ftp://"), host, path).map((p) => p.join("")),
  },
  { weight: 1, arbitrary: fc.tuple(host, fc.constantFrom(":80", ":443", "", ":0")).map((p) => p.join("")) },
  { weight: 1, arbitrary: fc.constantFrom("*", "", "//", "http://[zz/ws", "/apps/%E0%A4%A/ws", "%", "?", "#") },
);
const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS") },
  { weight: 1, arbitrary: fc.constantFrom("CONNECT", "TRACE", "get", "G E T", "", "BREW", "GET\u0000") },
);
const version = fc.oneof(
  { weight: 8, arbitrary: fc.constant("HTTP/1.1") },
  { weight: 2, arbitrary: fc.constantFrom("HTTP/1.0", "HTTP/2.0", "HTTP/9.9", "http/1.1", "HTTP/1.1 x", "") },
);
/** Lines a well-behaved client sends: most cases carry these, so they get past the parser and the auth. */
const BENIGN = [
  "Content-Type: application/json",
  "Content-Type: text/plain; charset=utf-8",
  "Accept: text/event-stream",
  "Accept: */*",
  "Connection: close",
  "Connection: Upgrade",
  "Upgrade: websocket",
  "Upgrade: h2c",
  "Sec-WebSocket-Key: short",
  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
  "Sec-WebSocket-Version: 13",
  "Sec-WebSocket-Version: 8",
  "Sec-WebSocket-Protocol: a, , b",
  "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=99",
  "Origin: https://evil.example",
  "Origin: https://studio.example",
  "Origin: null",
  "Origin: %%%",
  "Last-Event-ID: 3",
  "Last-Event-ID: -5",
  "Last-Event-ID: 1e999",
  "x-api-key: key-bo",
  "x-api-key: key-ana",
  "x-api-key: key-ops",
];
/** Lines that break the rules of HTTP, or strain its limits. */
const NASTY = [
  "Host: [zz",
  "Host: a\u0080b",
  "x-api-key: key-ana\u00ff",
  "Authorization: Bearer",
  "Authorization: Basic Zm9vOmJhcg==",
  "Content-Length: -1",
  "Content-Length: 1e3",
  "Content-Length: 99999999999999999999",
  "Content-Length: 0, 0",
  "Transfer-Encoding: gzip",
  "Transfer-Encoding: chunked, gzip",
  "no colon here",
  " leading-space: x",
  "bad header: x",
  "x: a\u0000b",
  "x: a\u007fb",
  "x:\tfolded\r\n continued",
  ": empty-name",
];
const headers = fc
  .record({
    host: fc.constantFrom("Host: 127.0.0.1", "Host: 127.0.0.1", "Host: 127.0.0.1", "Host: localhost:1", "Host: ", ""),
    auth: fc.constantFrom(
      "x-api-key: key-ana",
      "x-api-key: key-ana",
      "Authorization: Bearer key-ana",
      "x-api-key: no",
      "",
    ),
    extra: fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...BENIGN) },
        { weight: 2, arbitrary: fc.constantFrom(...NASTY) },
        { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z-]{1,10}: [ -~]{0,20}$/) },
        { weight: 1, arbitrary: fc.constantFrom(2_000, 9_000, 20_000).map((n) => `x-big: ${"b".repeat(n)}`) },
      ),
      { maxLength: 4 },
    ),
  })
  .map((h) => [h.host, h.auth, ...h.extra].filter((line) => line !== ""));
const body = fc.oneof(
  { weight: 4, arbitrary: fc.constant("") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "{}",
      "{not json",
      "[1,2]",
      "null",
      '{"assistant_id":"slow","input":{}}',
      '{"thread_id":"%E0%A4%A"}',
      '{"limit":1e999}',
      `{"a":${"[".repeat(600)}${"]".repeat(600)}}`,
      '{"threadId":"t","runId":"r","messages":[]}',
      '{"__proto__":{"x":1}}',
      '{"assistant_id":"slow","input":{},"config":{"configurable":{"user_id":"bo"}}}',
      '{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"configurable":{"langgraph_auth_user_id":"bo"}}}',
    ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString("latin1")) },
  { weight: 1, arbitrary: fc.constantFrom(70_000, 200_000).map((n) => `{"x":"${"y".repeat(n)}"}`) },
);
const framing = fc.constantFrom("content-length", "content-length", "none", "chunked", "bad-chunked", "short-length");

/** One raw HTTP request: a request line, headers and a body, framed honestly or not. */
export const request = fc.record({ method, target, version, headers, body, framing }).map((r) => {
  const lines = [`${r.method} ${r.target} ${r.version}`.trimEnd(), ...r.headers];
  let payload = r.body;
  if (r.body !== "" || r.framing === "chunked") {
    if (r.framing === "content-length") lines.push(`Content-Length: ${Buffer.byteLength(r.body, "latin1")}`);
    if (r.framing === "short-length")
      lines.push(`Content-Length: ${Math.floor(Buffer.byteLength(r.body, "latin1") / 2)}`);
    if (r.framing === "chunked") {
      lines.push("Transfer-Encoding: chunked");
      payload = r.body ? `${Buffer.byteLength(r.body, "latin1").toString(16)}\r\n${r.body}\r\n0\r\n\r\n` : "0\r\n\r\n";
    }
    if (r.framing === "bad-chunked") {
      lines.push("Transfer-Encoding: chunked");
      payload = "zz\r\nhello\r\n0\r\n\r\n";
    }
  }
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n${payload}`, "latin1");
});

/** A request may wait for bytes it was promised; those cases have no answer and are cut at the bound. */
export function mayWait(raw: Buffer): boolean {
  const text = raw.toString("latin1");
  const head = text.slice(0, text.indexOf("\r\n\r\n"));
  // a Content-Length this fuzzer added is honest; one from the header list may promise more than is sent
  return /\r\ncontent-length: *(-1|1e3|9{5,}|0, 0)/i.test(head) || /\r\ntransfer-encoding: *gzip/i.test(head);
}
