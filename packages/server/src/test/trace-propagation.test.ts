import { Client } from "@langchain/langgraph-sdk";
import { context, propagation, trace } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkServer } from "./harness.js";

// One provider for the file, registered before the server starts, as an application registers its SDK.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => {
  provider.register();
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const s = sdkServer();

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

function runSpans(runId: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.attributes["trellis.run_id"] === runId);
}

describe("W3C trace context from an HTTP request to the run's spans", () => {
  it("parents the queued run's span on the request's traceparent, and links the resume to the paused run", async () => {
    const traced = new Client({
      apiUrl: s.t.url,
      apiKey: null,
      defaultHeaders: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
    });
    const thread = await traced.threads.create();
    const first = await traced.runs.create(thread.thread_id, "ask", { input: {} });
    await traced.runs.join(thread.thread_id, first.run_id);
    const [paused] = runSpans(first.run_id);
    expect(paused?.name).toBe("run ask");
    expect(paused?.spanContext().traceId).toBe(TRACE_ID);
    expect(paused?.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(paused?.attributes).toMatchObject({
      "trellis.thread_id": thread.thread_id,
      "trellis.status": "interrupted",
    });
    expect(paused?.events.map((e) => e.name)).toContain("trellis.interrupt");
    // the node that paused is in the same trace, under a superstep of the run
    const pausedNode = exporter
      .getFinishedSpans()
      .find((span) => span.name === "node ask" && span.spanContext().traceId === TRACE_ID);
    expect(pausedNode?.status.code).toBe(0);

    // the resume comes without a traceparent: it continues the paused run's trace, linked to it
    const second = await s.client.runs.create(thread.thread_id, "ask", { command: { resume: "Ada" } });
    await s.client.runs.join(thread.thread_id, second.run_id);
    const [resumed] = runSpans(second.run_id);
    expect(resumed?.spanContext().traceId).toBe(TRACE_ID);
    expect(resumed?.parentSpanContext?.spanId).toBe(paused?.spanContext().spanId);
    expect(resumed?.links.map((l) => l.context.spanId)).toEqual([paused?.spanContext().spanId]);
    expect(resumed?.attributes["trellis.status"]).toBe("done");
    const state = await s.client.threads.getState(thread.thread_id);
    expect((state.values as { answer?: string }).answer).toBe("Ada");
  });

  it("starts a new trace for a request without traceparent, and ignores a malformed one", async () => {
    const bad = new Client({ apiUrl: s.t.url, apiKey: null, defaultHeaders: { traceparent: "00-zz-nope-01" } });
    const thread = await bad.threads.create();
    const run = await bad.runs.create(thread.thread_id, "ask", { input: {} });
    await bad.runs.join(thread.thread_id, run.run_id);
    const [span] = runSpans(run.run_id);
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.spanContext().traceId).not.toBe(TRACE_ID);
  });
});
