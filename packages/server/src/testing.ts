/**
 * `@trellis/server/testing`: helpers for tests that drive a served app through its HTTP door. Nothing
 * here runs at import time.
 */
import net from "node:net";

/** A JSON answer: its status and parsed body. */
export interface HeldAnswer {
  status: number;
  json: Record<string, unknown>;
}

/**
 * A request whose head the server has (it answered `100 Continue`); its body goes with `send`.
 *
 * @example
 * const held = await holdRequest(url, "/threads/t1/runs", { assistant_id: "agent", command: { resume: "yes" } });
 * const { status, json } = await held.send();
 */
export interface HeldRequest {
  send(): Promise<HeldAnswer>;
}

/**
 * Opens a connection of its own, sends a POST's head with `Expect: 100-continue` and resolves once the
 * server answered `100 Continue`: the request has arrived (the server stamped its arrival), its body
 * not yet. A test sends the body when it chooses — a request that arrived in time but is read late, as
 * a slow network delivers a double-submitted answer.
 *
 * @example
 * const [a, b] = await Promise.all([holdRequest(url, path, body), holdRequest(url, path, body)]);
 * await a.send(); // the first answer runs to the next pause
 * expect((await b.send()).status).toBe(409); // the second arrived before that pause: RESUME_MISMATCH
 */
export function holdRequest(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HeldRequest> {
  const { hostname, port } = new URL(url);
  const payload = Buffer.from(JSON.stringify(body));
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    "Content-Type: application/json",
    `Content-Length: ${payload.length}`,
    "Expect: 100-continue",
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let bytes = Buffer.alloc(0);
    let answered: ((a: HeldAnswer) => void) | undefined;
    let held = false;
    socket.on("error", reject);
    socket.on("connect", () => socket.write(`${head}\r\n\r\n`));
    socket.on("data", (d) => {
      bytes = Buffer.concat([bytes, d]);
      if (!held && bytes.includes("100 Continue\r\n\r\n")) {
        held = true;
        bytes = bytes.subarray(bytes.indexOf("\r\n\r\n") + 4);
        resolve({
          send: () =>
            new Promise<HeldAnswer>((done) => {
              answered = done;
              socket.write(payload);
            }),
        });
      }
    });
    socket.on("close", () => {
      if (!held) reject(new Error(`no 100 Continue: ${bytes.toString("latin1").slice(0, 200)}`));
      answered?.(parseAnswer(bytes));
    });
  });
}

/** The final answer in `bytes` (after the `100 Continue`): its status and JSON body (chunked or not). */
function parseAnswer(bytes: Buffer): HeldAnswer {
  const text = bytes.toString("utf8");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const end = text.indexOf("\r\n\r\n");
  let body = text.slice(end + 4);
  if (/\r\ntransfer-encoding: *chunked/i.test(text.slice(0, end))) {
    let out = "";
    for (let at = 0; ; ) {
      const line = body.indexOf("\r\n", at);
      const size = Number.parseInt(body.slice(at, line), 16);
      if (!size) break;
      out += body.slice(line + 2, line + 2 + size);
      at = line + 2 + size + 2;
    }
    body = out;
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    json = { text: body };
  }
  return { status, json };
}
