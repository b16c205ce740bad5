import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * One scripted answer of the fake server. Without `status`, it answers 200 with a chat completion
 * (JSON, or SSE when the request asked to stream) holding `content` and `toolCalls`.
 *
 * @example
 * const reply: FakeReply = { toolCalls: [{ name: "get_weather", args: { city: "Paris" } }] };
 * const limited: FakeReply = { status: 429, headers: { "retry-after": "2" } };
 */
export interface FakeReply {
  content?: string;
  /** `args` is sent as JSON text; `arguments` is sent verbatim (to send invalid JSON). */
  toolCalls?: { id?: string; name: string; args?: Record<string, unknown>; arguments?: string }[];
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** An error status (401, 429, 500...): answers with an OpenAI error body. */
  status?: number;
  headers?: Record<string, string>;
  /** Sends this text as the body instead of a valid completion (a malformed body). */
  rawBody?: string;
  /** Never answers (for timeouts); the connection is dropped on `close()`. */
  hang?: boolean;
  /** Characters a streamed piece of text or arguments holds. Default 4. */
  chunkSize?: number;
}

/**
 * A request the fake server received.
 *
 * @example
 * expect(server.requests[0]?.body.stream).toBe(true);
 */
export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  // biome-ignore lint/suspicious/noExplicitAny: the parsed JSON body of an OpenAI request, read freely in tests
  body: any;
}

/**
 * A running fake OpenAI server; see {@link startFakeOpenAiServer}.
 *
 * @example
 * const server: FakeOpenAiServer = await startFakeOpenAiServer(["Hello"]);
 */
export interface FakeOpenAiServer {
  /** API root to give a client as `baseURL`, e.g. `http://127.0.0.1:43125/v1`. */
  readonly url: string;
  readonly requests: FakeRequest[];
  /** Adds replies to the queue. */
  enqueue(...replies: (FakeReply | string)[]): void;
  close(): Promise<void>;
}

/**
 * Answers each request; used when the reply queue is empty.
 *
 * @example
 * const handler: FakeHandler = (req) => ({ content: `You said ${req.body.messages.at(-1).content}` });
 */
export type FakeHandler = (request: FakeRequest) => FakeReply | string;

/**
 * Starts a local server on 127.0.0.1 (random port) that speaks OpenAI's chat-completions protocol:
 * `POST …/chat/completions`, JSON or SSE streaming (with `stream_options.include_usage`), tool calls,
 * and errors on demand. Each request takes the next queued reply, else asks `handler`, else answers
 * 500. For tests and offline demos: it never calls out.
 *
 * @example
 * const server = await startFakeOpenAiServer(["Hi there!"]);
 * const model = createChatModel({ provider: "openai", model: "gpt-test", apiKey: "k", baseURL: server.url });
 * await model.invoke(["Hello"]); // content "Hi there!"
 * await server.close();
 */
export async function startFakeOpenAiServer(
  replies: readonly (FakeReply | string)[] = [],
  handler?: FakeHandler,
): Promise<FakeOpenAiServer> {
  const queue: FakeReply[] = replies.map(toReply);
  const requests: FakeRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let counter = 0;

  const server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      let body: unknown;
      try {
        body = text === "" ? {} : JSON.parse(text);
      } catch {
        body = { unparsable: text };
      }
      const request: FakeRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body };
      requests.push(request);
      if (req.method !== "POST" || !/\/chat\/completions(\?|$)/.test(request.path)) {
        sendJson(res, 404, { error: { message: `No route ${req.method} ${req.url}`, type: "not_found" } });
        return;
      }
      const next = queue.shift() ?? (handler ? toReply(handler(request)) : undefined);
      if (!next) {
        sendJson(res, 500, { error: { message: "The fake server has no reply left", type: "server_error" } });
        return;
      }
      counter++;
      answer(res, next, request, counter, hanging);
    })();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...more) => {
      queue.push(...more.map(toReply));
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

function toReply(reply: FakeReply | string): FakeReply {
  return typeof reply === "string" ? { content: reply } : reply;
}

function answer(res: ServerResponse, reply: FakeReply, request: FakeRequest, n: number, hanging: Set<ServerResponse>) {
  if (reply.hang) {
    hanging.add(res);
    res.on("close", () => hanging.delete(res));
    return;
  }
  const headers = reply.headers ?? {};
  if (reply.status !== undefined && reply.status >= 400) {
    const error = { message: `Fake error ${reply.status}`, type: errorType(reply.status), code: null };
    sendJson(res, reply.status, { error }, headers);
    return;
  }
  if (reply.rawBody !== undefined) {
    const type = request.body?.stream ? "text/event-stream" : "application/json";
    res.writeHead(reply.status ?? 200, { "content-type": type, ...headers });
    res.end(reply.rawBody);
    return;
  }
  const id = `chatcmpl-fake-${n}`;
  const model = String(request.body?.model ?? "fake");
  const content = reply.content ?? "";
  const calls = (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_fake_${n}_${i}`,
    name: c.name,
    arguments: c.arguments ?? JSON.stringify(c.args ?? {}),
  }));
  const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: Math.max(1, Math.ceil(content.length / 4)) };
  const fullUsage = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
  const finish = calls.length > 0 ? "tool_calls" : "stop";
  if (!request.body?.stream) {
    const message = {
      role: "assistant",
      content: calls.length > 0 && content === "" ? null : content,
      ...(calls.length > 0
        ? {
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : {}),
    };
    sendJson(
      res,
      200,
      {
        id,
        object: "chat.completion",
        created: 0,
        model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: fullUsage,
      },
      headers,
    );
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
  const size = reply.chunkSize ?? 4;
  const chunk = (delta: object, finishReason: string | null = null) =>
    sse(res, {
      id,
      object: "chat.completion.chunk",
      created: 0,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
  chunk({ role: "assistant", content: "" });
  for (const piece of pieces(content, size)) chunk({ content: piece });
  for (const [index, call] of calls.entries()) {
    chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of pieces(call.arguments, size))
      chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  }
  chunk({}, finish);
  if (request.body?.stream_options?.include_usage) {
    sse(res, { id, object: "chat.completion.chunk", created: 0, model, choices: [], usage: fullUsage });
  }
  res.end("data: [DONE]\n\n");
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sse(res: ServerResponse, data: object): void {
  res.write(`data: ${JSON.stringify(data)}\n\n`);
}

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function errorType(status: number): string {
  if (status === 401) return "invalid_request_error";
  if (status === 429) return "rate_limit_exceeded";
  return status >= 500 ? "server_error" : "invalid_request_error";
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
