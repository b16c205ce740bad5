import { channel } from "node:diagnostics_channel";
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import type { ChatRequest } from "./chat-model.js";
import type { AssistantMessage, Message, TokenUsage, ToolCall } from "./messages.js";

/**
 * What every model call publishes on the `trellis:model-usage` diagnostics channel when it returns:
 * the runtime adds it to the running node's usage, a server to its token counters.
 *
 * @example
 * import { subscribe } from "node:diagnostics_channel";
 * subscribe(MODEL_USAGE_CHANNEL, (m) => console.log((m as ModelUsageReport).usage));
 */
export interface ModelUsageReport {
  provider: string;
  model: string;
  usage: TokenUsage;
  /** When the call started (epoch ms) and how long it took, for a run's timeline. */
  startedAt?: number;
  durationMs?: number;
  /** `tool_calls` when the reply asks for tools, else `stop` (read from the reply). */
  finishReason?: string;
}

/**
 * What every tool call (`runTool`, so every `ToolNode` call) publishes on the `trellis:tool-call`
 * diagnostics channel when it ends, while someone listens (a server keeping the run's timeline):
 * the tool, when and how long, and how it ended — never its arguments or result.
 *
 * @example
 * import { subscribe } from "node:diagnostics_channel";
 * subscribe(TOOL_CALL_CHANNEL, (m) => console.log((m as ToolCallReport).tool, (m as ToolCallReport).status));
 */
export interface ToolCallReport {
  tool: string;
  callId: string;
  startedAt: number;
  durationMs: number;
  status: "ok" | "error" | "interrupted";
}

/**
 * Name of the diagnostics channel tool calls publish their {@link ToolCallReport} on.
 *
 * @example
 * import { subscribe } from "node:diagnostics_channel";
 * subscribe(TOOL_CALL_CHANNEL, (m) => console.log((m as ToolCallReport).durationMs));
 */
export const TOOL_CALL_CHANNEL = "trellis:tool-call";

const toolChannel = channel(TOOL_CALL_CHANNEL);

/**
 * Name of the diagnostics channel model calls publish their {@link ModelUsageReport} on.
 *
 * @example
 * import { subscribe } from "node:diagnostics_channel";
 * subscribe(MODEL_USAGE_CHANNEL, (m) => {
 *   const { provider, model, usage } = m as ModelUsageReport;
 *   console.log(`${provider}:${model}`, usage.totalTokens);
 * });
 */
export const MODEL_USAGE_CHANNEL = "trellis:model-usage";

const usageChannel = channel(MODEL_USAGE_CHANNEL);

/**
 * Environment variable that opts in to recording prompt and completion text (and tool arguments and
 * results) on spans: the OpenTelemetry GenAI instrumentations' own switch. Off by default.
 *
 * @example
 * process.env[CAPTURE_CONTENT_ENV] = "true"; // spans now carry prompts, completions and tool arguments
 */
export const CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

let cached: Tracer | undefined;
function tracer(): Tracer {
  cached ??= trace.getTracer("@trellis/models");
  return cached;
}

function captureContent(): boolean {
  return process.env[CAPTURE_CONTENT_ENV]?.toLowerCase() === "true";
}

interface ModelId {
  readonly provider: string;
  readonly model: string;
}

/**
 * Runs one model call under a GenAI `chat {model}` client span, and publishes its usage. @internal
 */
export async function traceModelCall(
  model: ModelId,
  messages: readonly Message[],
  request: ChatRequest,
  run: () => Promise<AssistantMessage>,
): Promise<AssistantMessage> {
  const span = startModelSpan(model, messages, request);
  const startedAt = Date.now();
  try {
    const reply = span ? await context.with(trace.setSpan(context.active(), span), run) : await run();
    if (span) endModelSpan(span, reply);
    reportUsage(model, reply, startedAt);
    return reply;
  } catch (error) {
    if (span) failSpan(span, error);
    throw error;
  }
}

/** The streaming form of {@link traceModelCall}: the span lasts until the stream ends. @internal */
export async function* traceModelStream<D extends { type: string; message?: AssistantMessage }>(
  model: ModelId,
  messages: readonly Message[],
  request: ChatRequest,
  deltas: AsyncIterable<D>,
): AsyncIterable<D> {
  const span = startModelSpan(model, messages, request);
  const startedAt = Date.now();
  let reply: AssistantMessage | undefined;
  let ended = false;
  try {
    for await (const delta of deltas) {
      if (delta.type === "message") reply = delta.message;
      yield delta;
    }
    ended = true;
    if (span) endModelSpan(span, reply);
    if (reply) reportUsage(model, reply, startedAt);
  } catch (error) {
    ended = true;
    if (span) failSpan(span, error);
    throw error;
  } finally {
    // the consumer stopped reading early: the call ends here, with what it had produced
    if (!ended && span) endModelSpan(span, reply);
  }
}

function startModelSpan(model: ModelId, messages: readonly Message[], request: ChatRequest): Span | undefined {
  const span = tracer().startSpan(`chat ${model.model}`, { kind: SpanKind.CLIENT });
  if (!span.isRecording()) return undefined;
  const attributes: Attributes = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": model.provider,
    "gen_ai.system": model.provider,
    "gen_ai.request.model": model.model,
  };
  if (request.temperature !== undefined) attributes["gen_ai.request.temperature"] = request.temperature;
  if (request.maxTokens !== undefined) attributes["gen_ai.request.max_tokens"] = request.maxTokens;
  if (request.tools?.length) attributes["trellis.request.tools"] = request.tools.map((t) => t.name);
  if (captureContent()) attributes["gen_ai.input.messages"] = JSON.stringify(messages);
  span.setAttributes(attributes);
  return span;
}

function endModelSpan(span: Span, reply: AssistantMessage | undefined): void {
  if (reply) {
    const attributes: Attributes = {
      "gen_ai.response.id": reply.id,
      // the reply's shape tells why it ended: with tool calls, or with an answer
      "gen_ai.response.finish_reasons": [finishReason(reply)],
    };
    if (reply.usage) {
      attributes["gen_ai.usage.input_tokens"] = reply.usage.inputTokens;
      attributes["gen_ai.usage.output_tokens"] = reply.usage.outputTokens;
      if (reply.usage.cachedInputTokens !== undefined)
        attributes["gen_ai.usage.cache_read.input_tokens"] = reply.usage.cachedInputTokens;
    }
    if (captureContent()) attributes["gen_ai.output.messages"] = JSON.stringify([reply]);
    span.setAttributes(attributes);
  }
  span.end();
}

function finishReason(reply: AssistantMessage): string {
  return reply.toolCalls?.length ? "tool_calls" : "stop";
}

function reportUsage(model: ModelId, reply: AssistantMessage, startedAt: number): void {
  if (reply.usage && usageChannel.hasSubscribers) {
    usageChannel.publish({
      provider: model.provider,
      model: model.model,
      usage: reply.usage,
      startedAt,
      durationMs: Date.now() - startedAt,
      finishReason: finishReason(reply),
    } satisfies ModelUsageReport);
  }
}

function reportTool(call: ToolCall, startedAt: number, status: ToolCallReport["status"]): void {
  if (!toolChannel.hasSubscribers) return;
  const report: ToolCallReport = {
    tool: call.name,
    callId: call.id,
    startedAt,
    durationMs: Date.now() - startedAt,
    status,
  };
  toolChannel.publish(report);
}

/** Records a failure on a span (an `exception` event, status ERROR) and ends it; a pause is an event. */
function failSpan(span: Span, error: unknown): void {
  if (isPause(error)) span.addEvent("trellis.interrupt");
  else {
    const err = error instanceof Error ? error : new Error(String(error));
    span.recordException(err);
    span.setAttribute("error.type", String((error as { code?: unknown })?.code ?? err.name));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
  }
  span.end();
}

/** A graph interrupt or command passing through: control flow, not a failure. */
function isPause(error: unknown): boolean {
  const name = (error as { name?: unknown })?.name;
  return name === "GraphInterrupt" || name === "ParentCommand";
}

/**
 * Runs one tool call under an `execute_tool {name}` span. A tool that fails (its outcome is an error
 * message for the model) marks the span as an error; a tool that pauses the run adds an event. @internal
 */
export async function traceToolCall<O extends { status: "success" | "error"; error?: string }>(
  call: ToolCall,
  run: () => Promise<O>,
): Promise<O> {
  const active = context.active();
  const startedAt = Date.now();
  const span = tracer().startSpan(`execute_tool ${call.name}`, { kind: SpanKind.INTERNAL }, active);
  if (!span.isRecording()) {
    if (!toolChannel.hasSubscribers) return await run();
    try {
      const outcome = await run();
      reportTool(call, startedAt, outcome.status === "error" ? "error" : "ok");
      return outcome;
    } catch (error) {
      reportTool(call, startedAt, isPause(error) ? "interrupted" : "error");
      throw error;
    }
  }
  const content = captureContent();
  span.setAttributes({
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": call.name,
    "gen_ai.tool.call.id": call.id,
    ...(content ? { "gen_ai.tool.call.arguments": JSON.stringify(call.args) } : {}),
  });
  try {
    const outcome = await context.with(trace.setSpan(active, span), run);
    if (outcome.status === "error") {
      span.setAttribute("error.type", "tool_error");
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? "the tool failed" });
    } else if (content) {
      span.setAttribute("gen_ai.tool.call.result", JSON.stringify((outcome as { message?: unknown }).message ?? null));
    }
    span.end();
    reportTool(call, startedAt, outcome.status === "error" ? "error" : "ok");
    return outcome;
  } catch (error) {
    failSpan(span, error);
    reportTool(call, startedAt, isPause(error) ? "interrupted" : "error");
    throw error;
  }
}
