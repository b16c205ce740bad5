import { TrellisError, type TrellisErrorCode, toHttpStatus } from "@trellis/checkpoint";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Turns any error a handler threw into the API's error answer: `{ error: code, message }` with the
 * status `toHttpStatus(code)` gives. Errors that are not TrellisErrors are logged and answered 500
 * with code INTERNAL; handlers validate requests first so bad requests never end here.
 *
 * @example
 * app.onError(errorResponse);
 */
export function errorResponse(error: Error, c: Context): Response {
  if (error instanceof TrellisError) return errorJson(c, error.code, error.message);
  if (error instanceof HTTPException) {
    const status = error.status;
    const code: TrellisErrorCode =
      status === 413 ? "PAYLOAD_TOO_LARGE" : status === 401 ? "UNAUTHORIZED" : "INVALID_ARGUMENT";
    return errorJson(c, code, error.message || "Bad request.", status);
  }
  console.error("[trellis-server] unexpected error:", error);
  return errorJson(c, "INTERNAL", "The server failed while handling this request; see its log.");
}

/**
 * An error answer for `code`.
 *
 * @example
 * return errorJson(c, "NOT_FOUND", `Thread "${id}" not found.`);
 */
export function errorJson(c: Context, code: TrellisErrorCode, message: string, status?: number): Response {
  return c.json({ error: code, message }, (status ?? toHttpStatus(code)) as ContentfulStatusCode);
}

/**
 * A 404 for a resource that does not exist or that the caller may not see.
 *
 * @example
 * throw notFound("Thread", threadId);
 */
export function notFound(kind: string, id: string): TrellisError {
  return new TrellisError("NOT_FOUND", `${kind} "${id}" not found.`, { details: { id } });
}
