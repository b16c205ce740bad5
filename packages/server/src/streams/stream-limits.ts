import { TrellisError } from "@trellis/checkpoint";
import type { MiddlewareHandler } from "hono";
import type { ServerContext, ServerEnv } from "../http/server-context.js";

/**
 * Counts the streams each user holds open — SSE run streams and WebSockets — against
 * `limits.streamsPerUser`. With auth off there are no users to count and nothing is limited.
 *
 * @example
 * const release = streamLimitsFor(ctx).acquire(user); // throws TOO_MANY_REQUESTS past the limit
 * socket.once("close", release);
 */
export class StreamLimits {
  readonly #open = new Map<string, number>();

  constructor(
    readonly perUser: number,
    readonly enabled: boolean,
  ) {}

  /** Takes a place for `user`; returns the function that gives it back (calling it twice is harmless). */
  acquire(user: string | null): () => void {
    if (!this.enabled || user === null) return () => undefined;
    const count = this.#open.get(user) ?? 0;
    if (count >= this.perUser) {
      throw new TrellisError(
        "TOO_MANY_REQUESTS",
        `You have ${count} open streams, the most limits.streamsPerUser allows: close one (an SSE stream or a WebSocket) and try again.`,
        { details: { limit: this.perUser } },
      );
    }
    this.#open.set(user, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(user) ?? 1) - 1;
      if (left > 0) this.#open.set(user, left);
      else this.#open.delete(user);
    };
  }

  /** Streams `user` holds open now. */
  openFor(user: string): number {
    return this.#open.get(user) ?? 0;
  }
}

const byContext = new WeakMap<ServerContext, StreamLimits>();

/** The stream limits of one server (one per {@link ServerContext}). */
export function streamLimitsFor(ctx: ServerContext): StreamLimits {
  let limits = byContext.get(ctx);
  if (!limits) {
    limits = new StreamLimits(ctx.config.limits.streamsPerUser, ctx.authEnabled);
    byContext.set(ctx, limits);
  }
  return limits;
}

/**
 * Middleware for routes that answer with a stream: takes one of the user's places before the handler
 * runs (so a refused request stores nothing) and gives it back when the answer's body ends or its
 * reader goes away (the client disconnected), or at once when the answer is not a stream.
 *
 * @example
 * app.use("/threads/:thread_id/runs/stream", limitStreams(ctx));
 */
export function limitStreams(ctx: ServerContext): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const limits = streamLimitsFor(ctx);
    if (!limits.enabled) return next(); // auth off: no users to count
    const release = limits.acquire(c.var.user);
    try {
      await next();
    } catch (error) {
      release();
      throw error;
    }
    const body = c.res.body;
    if (!body || c.res.status !== 200 || !c.res.headers.get("content-type")?.startsWith("text/event-stream")) {
      release();
      return;
    }
    c.res = new Response(releasingBody(body, release), c.res);
  };
}

/** `body`, calling `release` once it ended, failed or was cancelled. */
function releasingBody(body: ReadableStream<Uint8Array>, release: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            release();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          release();
          controller.error(error);
        }
      },
      async cancel(reason) {
        release();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
