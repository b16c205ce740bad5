/**
 * An unexpected failure is answered 500 INTERNAL and logged as a `request-failed` line naming the route
 * and the error — at most 10 a minute per kind of error, never with the request's body or query.
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { errorResponder } from "../http/http-errors.js";
import { readBody } from "../http/request-body.js";
import type { LogEntry } from "../operations/worker-log.js";

describe("errors the server did not expect", () => {
  it("are answered 500 and logged at most 10 times a minute per kind, without the request body", async () => {
    const lines: LogEntry[] = [];
    const app = new Hono();
    app.onError(errorResponder((e) => lines.push(e)));
    app.post("/boom/:id", async (c) => {
      const body = await readBody(c);
      throw new Error(`database refused statement ${String(body.n)}`);
    });
    for (let n = 0; n < 30; n++) {
      const res = await app.request(`/boom/${n}?token=query-secret`, {
        method: "POST",
        body: JSON.stringify({ n, secret: "body-secret" }),
      });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({
        error: "INTERNAL",
        message: "The server failed while handling this request; see its log.",
      });
    }
    const failed = lines.filter((l) => l.event === "request-failed");
    expect(failed).toHaveLength(10);
    expect(failed[0]).toMatchObject({ level: "error", method: "POST", route: "/boom/:id", error: "Error" });
    const text = JSON.stringify(lines);
    expect(text).not.toContain("body-secret");
    expect(text).not.toContain("query-secret");
  });
});
