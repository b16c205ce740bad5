import { context, propagation, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { type ReceivedSpan, startOtlpReceiver } from "@trellis/common/testing";
import { Command, interrupt, MemorySaver } from "@trellis/core";
import { ScriptedChatModel, tool, userMessage } from "@trellis/models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { createReactAgent } from "../index.js";

// One provider for the file: the runtime asks for its tracer once, as an application registers its SDK once.
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let provider: NodeTracerProvider;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": "tracing-test" }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: receiver.url }))],
  });
  provider.register();
});

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
  await receiver.close();
});

const refund = tool({
  name: "issue_refund",
  description: "Refunds an order once a person approves",
  schema: z.object({ amount: z.number() }),
  fn: ({ amount }) => {
    const answer = interrupt<string>({ question: `Refund ${amount}?` });
    return answer === "yes" ? `refunded ${amount}` : "not refunded";
  },
});

/** The spans of one trace as an indented tree of names (children in start order). */
function tree(spans: ReceivedSpan[], rootId: string, depth = 0): string[] {
  const root = spans.find((s) => s.spanId === rootId) as ReceivedSpan;
  const children = spans.filter((s) => s.parentSpanId === rootId);
  return [`${"  ".repeat(depth)}${root.name}`, ...children.flatMap((c) => tree(spans, c.spanId, depth + 1))];
}

function only(spans: ReceivedSpan[], pred: (s: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(pred);
  expect(found).toHaveLength(1);
  return found[0] as ReceivedSpan;
}

describe("OpenTelemetry spans of a ReAct agent run", () => {
  it("exports one trace across an interrupt and its resume: run, supersteps, nodes, durable steps, model and tool calls", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "issue_refund", args: { amount: 20 } }] },
      "Done: refunded 20.",
    ]);
    const agent = createReactAgent({ model, tools: [refund], checkpointer: new MemorySaver(), name: "support" });
    const threadId = "t-trace";
    await agent.invoke({ messages: [userMessage("Please refund my order")] }, { threadId, runId: "run-1" });
    expect((await agent.getState({ threadId })).next).toEqual(["tools"]);
    await agent.invoke(new Command({ resume: "yes" }), { threadId, runId: "run-2" });
    await provider.forceFlush();

    const spans = receiver.spans.filter((s) => s.attributes["trellis.thread_id"] === threadId || s.traceId);
    const runs = spans.filter((s) => s.name === "run support");
    expect(runs.map((r) => r.attributes["trellis.run_id"])).toEqual(["run-1", "run-2"]);
    const [first, second] = runs as [ReceivedSpan, ReceivedSpan];
    // one trace across the pause; the resumed run is linked to (and a child of) the paused run
    expect(second.traceId).toBe(first.traceId);
    expect(second.parentSpanId).toBe(first.spanId);
    expect(second.links).toEqual([
      { traceId: first.traceId, spanId: first.spanId, attributes: { "trellis.link": "paused_run" } },
    ]);
    expect(first.service).toBe("tracing-test");
    const trace1 = spans.filter((s) => s.traceId === first.traceId);
    // the tool call is a durable step ("call") of the tools node; its span holds the tool's
    expect(tree(trace1, first.spanId)).toEqual([
      "run support",
      "  superstep 0",
      "    node agent",
      "      step model",
      "        chat scripted",
      "  superstep 1",
      "    node tools",
      "      step call",
      "        execute_tool issue_refund",
      "  run support",
      "    superstep 1",
      "      node tools",
      "        step call",
      "          execute_tool issue_refund",
      "    superstep 2",
      "      node agent",
      "        step model",
      "          chat scripted",
    ]);

    // ids as attributes
    expect(first.attributes).toMatchObject({
      "trellis.graph": "support",
      "trellis.thread_id": threadId,
      "trellis.status": "interrupted",
    });
    expect(typeof first.attributes["trellis.checkpoint_id"]).toBe("string");
    expect(second.attributes["trellis.status"]).toBe("done");
    const agentNode = only(
      trace1,
      (s) =>
        s.name === "node agent" &&
        s.parentSpanId !== "" &&
        trace1.some((p) => p.spanId === s.parentSpanId && p.name === "superstep 0"),
    );
    expect(agentNode.attributes).toMatchObject({ "trellis.node": "agent", "trellis.superstep": 0 });
    expect(typeof agentNode.attributes["trellis.task_id"]).toBe("string");

    // the interrupt is an event, not an error: on the tool, its node and the run
    const pausedTool = trace1.filter((s) => s.name === "execute_tool issue_refund")[0] as ReceivedSpan;
    const pausedNode = trace1.find(
      (s) => s.spanId === trace1.find((p) => p.spanId === pausedTool.parentSpanId)?.parentSpanId,
    ) as ReceivedSpan;
    for (const span of [pausedTool, pausedNode, first]) {
      expect(span.status.code).toBe(0);
      expect(span.events.map((e) => e.name)).toContain("trellis.interrupt");
    }
    expect(pausedNode.events.find((e) => e.name === "trellis.interrupt")?.attributes["trellis.interrupt.count"]).toBe(
      1,
    );
    const resumedTool = trace1.filter((s) => s.name === "execute_tool issue_refund")[1] as ReceivedSpan;
    expect(resumedTool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "issue_refund",
    });
    expect(resumedTool.events).toEqual([]);

    // GenAI conventions on model spans; no prompt or completion text by default
    const chats = trace1.filter((s) => s.name === "chat scripted");
    expect(chats).toHaveLength(2);
    const [toolTurn, answerTurn] = chats as [ReceivedSpan, ReceivedSpan];
    expect(toolTurn.kind).toBe(3); // CLIENT
    expect(toolTurn.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "scripted",
      "gen_ai.system": "scripted",
      "gen_ai.request.model": "scripted",
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "trellis.request.tools": ["issue_refund"],
    });
    expect(answerTurn.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    for (const chat of chats) {
      expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
      expect(Object.keys(chat.attributes).filter((k) => k.includes("messages"))).toEqual([]);
    }
    const replyUsage = (await agent.getState({ threadId })).values.messages.at(-1);
    expect(answerTurn.attributes["gen_ai.usage.output_tokens"]).toBe(
      (replyUsage as { usage: { outputTokens: number } }).usage.outputTokens,
    );
  });

  it("records a failing model call as an error on its span, its node, its superstep and the run", async () => {
    const model = new ScriptedChatModel([new Error("provider is down")]);
    const agent = createReactAgent({ model, tools: [refund], checkpointer: new MemorySaver(), name: "failing" });
    await expect(agent.invoke({ messages: [userMessage("hi")] }, { threadId: "t-fail" })).rejects.toThrow(
      /provider is down/,
    );
    await provider.forceFlush();
    const run = only(receiver.spans, (s) => s.name === "run failing");
    const inTrace = receiver.spans.filter((s) => s.traceId === run.traceId);
    expect(tree(inTrace, run.spanId)).toEqual([
      "run failing",
      "  superstep 0",
      "    node agent",
      "      step model",
      "        chat scripted",
    ]);
    for (const span of inTrace) {
      expect(span.status).toMatchObject({ code: 2, message: "provider is down" });
      expect(span.events.find((e) => e.name === "exception")?.attributes["exception.message"]).toBe("provider is down");
    }
  });
  it("nests a run under the active span, unless its config gives a trace context (an empty one: a trace of its own)", async () => {
    const model = new ScriptedChatModel(["one", "two"]);
    const agent = createReactAgent({ model, tools: [], name: "nested" });
    const outer = trace.getTracer("test").startSpan("request B");
    await context.with(trace.setSpan(context.active(), outer), async () => {
      await agent.invoke({ messages: [userMessage("a")] }, { runId: "inside" });
      // a server's worker may claim a queued run inside another request's context: it says where the run belongs
      await agent.invoke({ messages: [userMessage("b")] }, { runId: "own", traceContext: {} });
    });
    outer.end();
    await provider.forceFlush();
    const b = outer.spanContext();
    const inside = only(receiver.spans, (s) => s.attributes["trellis.run_id"] === "inside");
    const own = only(receiver.spans, (s) => s.attributes["trellis.run_id"] === "own");
    expect(inside).toMatchObject({ traceId: b.traceId, parentSpanId: b.spanId });
    expect(own.parentSpanId).toBe("");
    expect(own.traceId).not.toBe(b.traceId);
  });
});
