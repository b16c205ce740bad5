import { AsyncLocalStorage } from "node:async_hooks";
import { context, trace } from "@opentelemetry/api";
import { contextFromCarrier, currentTraceCarrier } from "@trellis/core";
import type { MiddlewareHandler } from "hono";

/** The trace context a request came with, kept for the runs it queues even when no SDK is registered. */
const incoming = new AsyncLocalStorage<Record<string, string>>();

/**
 * Hono middleware: a request carrying a valid W3C `traceparent` (and `tracestate`) is handled inside
 * that trace context, so the runs it queues carry it (the run service stores it with the run) and the
 * worker that executes them continues the caller's trace — and logs its trace id, SDK or not. A span an
 * HTTP instrumentation already made active is kept as the parent. Costs one header read when no
 * `traceparent` comes.
 *
 * @example
 * app.use("*", traceContextMiddleware);
 */
export const traceContextMiddleware: MiddlewareHandler = async (c, next) => {
  const traceparent = c.req.header("traceparent");
  if (!traceparent) return next();
  const tracestate = c.req.header("tracestate");
  const carrier = tracestate ? { traceparent, tracestate } : { traceparent };
  const extracted = contextFromCarrier(carrier);
  if (!extracted) return next(); // malformed: ignored, as W3C says
  if (trace.getSpanContext(context.active())) return incoming.run(carrier, next);
  return incoming.run(carrier, () => context.with(extracted, next));
};

/** `{ traceId }` of a run's stored trace context, for its log lines; empty when it has none. @internal */
export function traceIdField(carrier: Readonly<Record<string, string>> | undefined): { traceId?: string } {
  const m = /^00-([0-9a-f]{32})-/.exec(carrier?.traceparent ?? "");
  return m ? { traceId: m[1] as string } : {};
}

/**
 * `{ traceContext }` for a run accepted now: the active span's context (a traced request's, see
 * {@link traceContextMiddleware}), else the `traceparent` the request came with, else nothing.
 * @internal
 */
export function traceContextKwargs(): { traceContext?: Record<string, string> } {
  if (trace.getSpanContext(context.active())) {
    const carrier = currentTraceCarrier();
    if (carrier.traceparent) return { traceContext: carrier };
  }
  const carrier = incoming.getStore();
  return carrier ? { traceContext: { ...carrier } } : {};
}
