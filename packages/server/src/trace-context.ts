import { context, trace } from "@opentelemetry/api";
import { contextFromCarrier, currentTraceCarrier } from "@trellis/core";
import type { MiddlewareHandler } from "hono";

/**
 * Hono middleware: a request carrying a W3C `traceparent` (and `tracestate`) is handled inside that
 * trace context, so the runs it queues carry it (the run service stores it with the run) and the
 * worker that executes them continues the caller's trace. A context an HTTP instrumentation already
 * made active is kept as it is. Costs one header read when no `traceparent` comes.
 *
 * @example
 * app.use("*", traceContextMiddleware);
 */
export const traceContextMiddleware: MiddlewareHandler = async (c, next) => {
  const traceparent = c.req.header("traceparent");
  if (!traceparent || trace.getSpanContext(context.active())) return next();
  const tracestate = c.req.header("tracestate");
  const extracted = contextFromCarrier(tracestate ? { traceparent, tracestate } : { traceparent });
  if (!extracted) return next();
  return context.with(extracted, next);
};

/**
 * `{ traceContext }` for a run accepted now: the active trace context (a traced request's, see
 * {@link traceContextMiddleware}), or nothing when no span is active.
 * @internal
 */
export function traceContextKwargs(): { traceContext?: Record<string, string> } {
  if (!trace.getSpanContext(context.active())) return {};
  const carrier = currentTraceCarrier();
  return carrier.traceparent ? { traceContext: carrier } : {};
}
