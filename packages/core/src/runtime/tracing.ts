import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { TrellisError } from "@trellis/checkpoint";
import { GraphInterrupt, type Interrupt, ParentCommand } from "./command.js";

/**
 * W3C trace context of a run's caller (`traceparent`, optionally `tracestate`), as a server reads it
 * from an HTTP request and keeps it with a queued run, so the worker's spans join the caller's trace.
 *
 * @example
 * await graph.invoke(input, { threadId, traceContext: { traceparent: req.headers.get("traceparent") ?? "" } });
 */
export type TraceCarrier = Readonly<Record<string, string>>;

/** Checkpoint metadata key holding the `traceparent` of the run that wrote it (only while tracing). */
export const TRACEPARENT_KEY = "traceparent";

let cached: Tracer | undefined;

/** The runtime's tracer, asked for once: a proxy that follows whichever provider gets registered. @internal */
export function runtimeTracer(): Tracer {
  cached ??= trace.getTracer("@trellis/core");
  return cached;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Parses a W3C `traceparent` into a remote span context; undefined when malformed or all zeros. @internal */
export function parseTraceparent(value: unknown): SpanContext | undefined {
  if (typeof value !== "string") return undefined;
  const m = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!m) return undefined;
  const [, traceId, spanId, flags] = m as unknown as [string, string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}

/** The `traceparent` of a span context. @internal */
export function formatTraceparent(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/**
 * The OpenTelemetry context a W3C carrier describes: through the registered propagator (W3C,
 * baggage…), else read as a bare `traceparent`; undefined when it holds no valid trace context.
 *
 * @example
 * const ctx = contextFromCarrier({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });
 */
export function contextFromCarrier(carrier: TraceCarrier | undefined): Context | undefined {
  if (!carrier) return undefined;
  const extracted = propagation.extract(ROOT_CONTEXT, carrier);
  if (trace.getSpanContext(extracted)) return extracted;
  const sc = parseTraceparent(carrier.traceparent);
  return sc ? trace.setSpanContext(ROOT_CONTEXT, sc) : undefined;
}

/**
 * The W3C carrier of the active context (empty when no span is active): what a server stores with a
 * queued run so its worker continues the trace.
 *
 * @example
 * const traceContext = currentTraceCarrier(); // { traceparent: "00-…-…-01" }
 */
export function currentTraceCarrier(active: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  if (!carrier.traceparent) {
    const sc = trace.getSpanContext(active);
    if (sc && trace.isSpanContextValid(sc)) carrier.traceparent = formatTraceparent(sc);
  }
  return carrier;
}

/** What a run span starts from. @internal */
export interface RunSpanInit {
  graph: string;
  threadId: string | undefined;
  runId: string | undefined;
  /** The server's assistant, from the run's metadata (`assistant_id`). */
  assistantId: string | undefined;
  namespace: string;
  /** The caller's trace context (a root run only). */
  carrier: TraceCarrier | undefined;
  /** The `traceparent` of the run that left the thread paused, when this run continues it. */
  pausedBy: string | undefined;
  startTime: number;
}

/**
 * The spans of one graph run: the run, its supersteps and their tasks. Exists only while a tracer
 * provider records the run's span; otherwise the run pays one non-recording span and nothing else.
 * @internal
 */
export class RunTracing {
  readonly span: Span;
  readonly context: Context;

  private constructor(span: Span, ctx: Context) {
    this.span = span;
    this.context = ctx;
  }

  /** Starts the run span; undefined (and nothing more to pay) when it does not record. */
  static start(init: RunSpanInit): RunTracing | undefined {
    const paused = parseTraceparent(init.pausedBy);
    // a carrier, even an empty one, says where the run belongs: not under whatever span is active here
    // (a server's worker may claim a run inside another request's context)
    let parent = init.carrier ? (contextFromCarrier(init.carrier) ?? ROOT_CONTEXT) : context.active();
    // a resume nobody traced continues the paused run's trace: one trace across the pause
    if (!trace.getSpanContext(parent) && paused && init.namespace === "")
      parent = trace.setSpanContext(ROOT_CONTEXT, paused);
    const links: Link[] = paused ? [{ context: paused, attributes: { "trellis.link": "paused_run" } }] : [];
    const span = runtimeTracer().startSpan(
      init.namespace === "" ? `run ${init.graph}` : `subgraph ${init.graph}`,
      { kind: SpanKind.INTERNAL, startTime: init.startTime, links },
      parent,
    );
    if (!span.isRecording()) return undefined;
    const attributes: Attributes = { "trellis.graph": init.graph };
    if (init.threadId !== undefined) attributes["trellis.thread_id"] = init.threadId;
    if (init.runId !== undefined) attributes["trellis.run_id"] = init.runId;
    if (init.assistantId !== undefined) attributes["trellis.assistant_id"] = init.assistantId;
    if (init.namespace !== "") attributes["trellis.namespace"] = init.namespace;
    span.setAttributes(attributes);
    return new RunTracing(span, trace.setSpan(parent, span));
  }

  /** The `traceparent` to keep in the checkpoints this run writes. */
  get traceparent(): string {
    return formatTraceparent(this.span.spanContext());
  }

  /** Starts a superstep's span under the run's. */
  superstep(step: number, nodes: readonly string[]): { span: Span; context: Context } {
    const span = runtimeTracer().startSpan(
      `superstep ${step}`,
      {
        attributes: { "trellis.superstep": step, "trellis.tasks": nodes.length, "trellis.nodes": [...new Set(nodes)] },
      },
      this.context,
    );
    return { span, context: trace.setSpan(this.context, span) };
  }

  /** Runs a task under its own span (active while the node runs, so model and tool spans nest in it). */
  async task<T extends TaskEnd>(
    parent: Context,
    task: { id: string; node: string; superstep: number },
    run: () => T | Promise<T>,
  ): Promise<T> {
    const span = runtimeTracer().startSpan(
      `node ${task.node}`,
      { attributes: { "trellis.node": task.node, "trellis.task_id": task.id, "trellis.superstep": task.superstep } },
      parent,
    );
    try {
      const outcome = await context.with(trace.setSpan(parent, span), run);
      endTaskSpan(span, outcome);
      return outcome;
    } catch (error) {
      recordError(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /** Ends the run span with how the run stopped. */
  end(
    result:
      | { status: "done" | "interrupted"; interrupts: readonly Interrupt[]; checkpointId: string | undefined }
      | { error: unknown },
  ): void {
    if ("error" in result) {
      if (result.error instanceof ParentCommand) this.span.addEvent("trellis.command.parent");
      else recordError(this.span, result.error);
    } else {
      this.span.setAttribute("trellis.status", result.status);
      if (result.checkpointId !== undefined) this.span.setAttribute("trellis.checkpoint_id", result.checkpointId);
      if (result.status === "interrupted") interruptEvent(this.span, result.interrupts);
    }
    this.span.end();
  }
}

type TaskEnd =
  | { kind: "done" }
  | { kind: "interrupted"; interrupts: Interrupt[] }
  | { kind: "error"; error: unknown }
  | { kind: "parent" };

function endTaskSpan(span: Span, outcome: TaskEnd): void {
  if (outcome.kind === "error") recordError(span, outcome.error);
  else if (outcome.kind === "interrupted") interruptEvent(span, outcome.interrupts);
  else if (outcome.kind === "parent") span.addEvent("trellis.command.parent");
}

/** An interrupt is a pause, not a failure: an event on the span, whose status stays unset. */
function interruptEvent(span: Span, interrupts: readonly Interrupt[]): void {
  span.addEvent("trellis.interrupt", {
    "trellis.interrupt.count": interrupts.length,
    "trellis.interrupt.ids": interrupts.map((i) => i.id),
    "trellis.interrupt.nodes": interrupts.map((i) => i.node),
  });
}

/** Records an error on a span: an `exception` event and status ERROR, with the Trellis code when there is one. @internal */
export function recordError(span: Span, error: unknown): void {
  const err = error instanceof Error ? error : new Error(String(error));
  span.recordException(err);
  if (error instanceof TrellisError) span.setAttribute("error.type", error.code);
  else span.setAttribute("error.type", err.name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
}

/**
 * Runs a durable step's function under a span when the task running it is traced; otherwise just
 * runs it (no span, no extra await). @internal
 */
export function traceStep<T>(key: string, run: () => T | Promise<T>): T | Promise<T> {
  const active = context.active();
  if (!trace.getSpan(active)?.isRecording()) return run();
  return stepSpan(key, active, run);
}

async function stepSpan<T>(key: string, active: Context, run: () => T | Promise<T>): Promise<T> {
  const span = runtimeTracer().startSpan(`step ${key}`, { attributes: { "trellis.step": key } }, active);
  try {
    return await context.with(trace.setSpan(active, span), run);
  } catch (error) {
    if (error instanceof GraphInterrupt) interruptEvent(span, error.interrupts);
    else recordError(span, error);
    throw error;
  } finally {
    span.end();
  }
}
