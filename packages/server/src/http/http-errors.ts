import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { RequestError } from "@hono/node-server";
import { TrellisError, type TrellisErrorCode } from "@trellis/checkpoint";
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { rateLimitedLogger } from "../operations/log-rate-limit.js";
import { jsonLogger, type Logger } from "../operations/worker-log.js";
import { httpStatusOf } from "./http-status.js";

/**
 * The handler of errors a route threw (see {@link errorResponse}) whose unexpected failures go to `log`
 * as `request-failed` lines, at most 10 a minute per kind of error (the rest counted in one
 * `log-suppressed` line), so no client can flood the log by repeating a request that fails. A line
 * names the method, the route, the error's class, code, message (cut to 300 characters) and the top of
 * its stack — never the request's body, query or headers.
 *
 * @example
 * app.onError(errorResponder(jsonLogger({ worker: manager.workerId })));
 */
export function errorResponder(log: Logger): (error: Error, c: Context) => Response {
  const limited = rateLimitedLogger(log, {
    key: (e) => (e.event === "request-failed" ? `request-failed:${String(e.error)}` : undefined),
  });
  return (error, c) => {
    const answer = clientErrorAnswer(error, c);
    if (answer) return answer;
    const code = (error as { code?: unknown } | null)?.code;
    limited({
      level: "error",
      event: "request-failed",
      method: c.req.method,
      route: c.req.routePath || "unmatched",
      error: error?.name ?? typeof error,
      ...(typeof code === "string" ? { code } : {}),
      message: String(error?.message ?? error).slice(0, 300),
      stack: (error?.stack ?? "").split("\n").slice(1, 6).join("\n"),
    });
    return errorJson(c, "INTERNAL", "The server failed while handling this request; see its log.");
  };
}

let fallback: ((error: Error, c: Context) => Response) | undefined;
let unexpectedLog: Logger | undefined;

/**
 * Turns any error a handler threw into the API's error answer: `{ error: code, message }` with the
 * status `httpStatusOf(code)` gives. Client errors — typed errors, a malformed percent-escape, a client
 * that hung up before its body was read — are answered without a log line, so no client can flood the
 * log; anything else is answered 500 with code INTERNAL and logged, rate-limited, as
 * {@link errorResponder} does (to stderr as JSON lines).
 *
 * @example
 * app.onError(errorResponse);
 */
export function errorResponse(error: Error, c: Context): Response {
  fallback ??= errorResponder(jsonLogger({ component: "http" }));
  return fallback(error, c);
}

/** The answer to an error the client caused, or undefined for one the server must log. */
function clientErrorAnswer(error: Error, c: Context): Response | undefined {
  if (error instanceof TrellisError) {
    // a refused answer says what the thread waits on, so the client can answer it by interrupt id
    const details = ANSWERED_DETAILS.has(error.code) ? error.details : undefined;
    return errorJson(c, error.code, error.message, undefined, details);
  }
  if (error instanceof HTTPException) {
    const status = error.status;
    const code: TrellisErrorCode =
      status === 413 ? "PAYLOAD_TOO_LARGE" : status === 401 ? "UNAUTHORIZED" : "INVALID_ARGUMENT";
    return errorJson(c, code, error.message || "Bad request.", status);
  }
  if (error instanceof URIError) return errorJson(c, "INVALID_ARGUMENT", "The request has a malformed percent-escape.");
  if (clientHungUp(error)) {
    return errorJson(c, "INVALID_ARGUMENT", "The client closed the connection before its request was read.");
  }
  return undefined;
}

/** True for the error of reading a request whose client closed the connection mid-way. */
function clientHungUp(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as { name?: unknown } | null)?.name;
  return (
    code === "ECONNRESET" ||
    code === "ERR_STREAM_PREMATURE_CLOSE" ||
    name === "AbortError" ||
    (error instanceof Error && error.message === "aborted")
  );
}

/**
 * Middleware that answers 400 `INVALID_ARGUMENT` to a request whose path has a malformed
 * percent-escape (`/threads/%E0%A4%A`), whose URL holds a NUL character (`%00`, which no SQL text can
 * hold) or whose URL carries credentials (`http://user@host/…`), before
 * any route, the body limit or the auth sees it. Mounted first, so the answer is the same with or
 * without credentials.
 *
 * @example
 * app.use("*", rejectMalformedUrl);
 */
export const rejectMalformedUrl: MiddlewareHandler = async (c, next) => {
  let url: URL;
  try {
    url = new URL(c.req.url);
  } catch {
    return errorJson(c, "INVALID_ARGUMENT", "The request target is not a valid URL.");
  }
  if (url.username || url.password)
    return errorJson(c, "INVALID_ARGUMENT", "The request URL may not carry credentials.");
  try {
    decodeURIComponent(url.pathname);
  } catch {
    return errorJson(c, "INVALID_ARGUMENT", "The request path has a malformed percent-escape.");
  }
  // ids and query values are looked up in SQL, whose text cannot hold a NUL character
  if (/%00/.test(url.pathname) || /%00/.test(url.search)) {
    return errorJson(c, "INVALID_ARGUMENT", "The request URL holds a NUL character (%00): remove it.");
  }
  return next();
};

/**
 * The answer of the Node listener when a request cannot even become a Fetch `Request` (an absolute
 * target that is not a URL, a bad `Host`): a 400 JSON error, not logged. Anything else is a 500, logged.
 *
 * @example
 * createServer(getRequestListener(app.fetch, { errorHandler: requestErrorAnswer }));
 */
export function requestErrorAnswer(error: unknown): Response {
  const client = error instanceof RequestError;
  if (!client) {
    unexpectedLog ??= rateLimitedLogger(jsonLogger({ component: "http" }), { key: (e) => e.event });
    const e = error as Error | undefined;
    unexpectedLog({
      level: "error",
      event: "request-unreadable",
      error: e?.name ?? typeof error,
      message: String(e?.message ?? error).slice(0, 300),
    });
  }
  const body = client
    ? { error: "INVALID_ARGUMENT", message: `Bad request: ${(error as Error).message}.` }
    : { error: "INTERNAL", message: "The server failed while handling this request; see its log." };
  return new Response(JSON.stringify(body), {
    status: client ? 400 : 500,
    headers: { "content-type": "application/json" },
  });
}

/**
 * The answer to a request Node's HTTP parser refused (`'clientError'`): the status Node would give
 * (400, 408, 431) as a JSON error, then the connection is closed. Nothing is logged.
 *
 * @example
 * server.on("clientError", answerClientError);
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // as Node does: answer unless a response on this connection has begun (earlier keep-alive answers
  // may have been written; they are complete)
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (answering || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const fresh = { evenAfterWrites: true };
  if (error.code === "HPE_HEADER_OVERFLOW") {
    writeRawError(socket, 431, "PAYLOAD_TOO_LARGE", "The request's headers are too large.", fresh);
  } else if (error.code === "ERR_HTTP_REQUEST_TIMEOUT" || error.code === "HPE_HEADERS_TIMEOUT") {
    writeRawError(socket, 408, "INVALID_ARGUMENT", "The request took too long to arrive.", fresh);
  } else writeRawError(socket, 400, "INVALID_ARGUMENT", "The request is not valid HTTP.", fresh);
}

/**
 * Writes a complete HTTP error answer (`{ error, message }` as JSON) straight to a socket no response
 * object owns (a refused upgrade, a request the parser refused), and destroys the socket once written —
 * or after 5 s if the client does not read. When something was written to the socket already (a
 * handshake begun), it is only destroyed, unless `evenAfterWrites`.
 *
 * @example
 * writeRawError(socket, 403, "FORBIDDEN", "Origin not allowed.");
 */
export function writeRawError(
  socket: Duplex,
  status: number,
  code: TrellisErrorCode,
  message: string,
  o: { evenAfterWrites?: boolean } = {},
): void {
  if (socket.destroyed) return;
  if ((!o.evenAfterWrites && ((socket as Partial<Socket>).bytesWritten ?? 0) > 0) || !socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: code, message });
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    "Connection: close",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  socket.once("finish", () => socket.destroy());
  setTimeout(() => socket.destroy(), 5_000).unref();
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}

/**
 * An error answer for `code`.
 *
 * @example
 * return errorJson(c, "NOT_FOUND", `Thread "${id}" not found.`);
 */
export function errorJson(
  c: Context,
  code: TrellisErrorCode,
  message: string,
  status?: number,
  details?: Readonly<Record<string, unknown>>,
): Response {
  const body = details ? { error: code, message, details } : { error: code, message };
  return c.json(body, (status ?? httpStatusOf(code)) as ContentfulStatusCode);
}

/** Codes whose details are answered to the client: the pending interrupts of a refused resume or input. */
const ANSWERED_DETAILS = new Set<TrellisErrorCode>(["RESUME_MISMATCH", "AMBIGUOUS_RESUME", "THREAD_PAUSED"]);

/**
 * A 404 for a resource that does not exist or that the caller may not see.
 *
 * @example
 * throw notFound("Thread", threadId);
 */
export function notFound(kind: string, id: string): TrellisError {
  return new TrellisError("NOT_FOUND", `${kind} "${id}" not found.`, { details: { id } });
}
