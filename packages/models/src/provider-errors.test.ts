import { ManualClock } from "@trellis/common";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatDelta } from "./chat-model.js";
import { ModelError } from "./model-errors.js";
import { type CreateChatModelOptions, createChatModel } from "./providers.js";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "./testing/index.js";

let server: FakeOpenAiServer;
let sleeps: number[];
beforeEach(async () => {
  server = await startFakeOpenAiServer();
  sleeps = [];
});
afterEach(async () => {
  await server.close();
});

function model(extra: Partial<CreateChatModelOptions> = {}) {
  return createChatModel({
    provider: "openai",
    model: "gpt-test",
    apiKey: "sk-test",
    baseURL: server.url,
    retry: {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
    ...extra,
  });
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

async function drain(stream: AsyncIterable<ChatDelta>): Promise<ChatDelta[]> {
  const out: ChatDelta[] = [];
  for await (const d of stream) out.push(d);
  return out;
}

describe("provider errors become typed errors", () => {
  it("401 → MODEL_AUTH, not retried", async () => {
    server.enqueue({ status: 401 }, "never used");
    const error = await failure(model().invoke(["hi"]));
    expect(error.code).toBe("MODEL_AUTH");
    expect(error.details).toMatchObject({ provider: "openai", model: "gpt-test", status: 401 });
    expect(error.message).toContain("API key");
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("429 with retry-after → waits what the provider asked, then retries and succeeds", async () => {
    server.enqueue({ status: 429, headers: { "retry-after": "7" } }, "finally");
    const reply = await model().invoke(["hi"]);
    expect(reply.content).toBe("finally");
    expect(sleeps).toEqual([7000]);
    expect(server.requests).toHaveLength(2);
  });

  it("429 every time → MODEL_RATE_LIMITED after maxRetries, with retryAfterMs and attempts", async () => {
    server.enqueue(...Array.from({ length: 3 }, () => ({ status: 429, headers: { "retry-after-ms": "250" } })));
    const error = await failure(
      model({ retry: { maxRetries: 2, sleep: async (ms) => void sleeps.push(ms) } }).invoke(["hi"]),
    );
    expect(error.code).toBe("MODEL_RATE_LIMITED");
    expect(error.details).toMatchObject({ status: 429, retryAfterMs: 250, attempts: 3 });
    expect(error.toString()).toContain("gave up after 3 attempts");
    expect(sleeps).toEqual([250, 250]);
  });

  it("429 asking for a wait longer than maxRetryAfterMs → thrown at once", async () => {
    server.enqueue({ status: 429, headers: { "retry-after": "3600" } });
    const error = await failure(
      model({ retry: { maxRetryAfterMs: 60_000, sleep: async (ms) => void sleeps.push(ms) } }).invoke(["hi"]),
    );
    expect(error.code).toBe("MODEL_RATE_LIMITED");
    expect(error.details.retryAfterMs).toBe(3_600_000);
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("500 → MODEL_UNAVAILABLE, retried with exponential backoff until it gives up", async () => {
    server.enqueue({ status: 500 }, { status: 500 }, { status: 503 });
    const error = await failure(model().invoke(["hi"]));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.details).toMatchObject({ status: 503, attempts: 3 });
    expect(sleeps).toEqual([1000, 2000]);
    expect(server.requests).toHaveLength(3);
  });

  it("500 once → the retry succeeds", async () => {
    server.enqueue({ status: 500 }, "ok");
    expect((await model().invoke(["hi"])).content).toBe("ok");
    expect(sleeps).toEqual([1000]);
  });

  it("timeout → MODEL_TIMEOUT when the server does not answer within timeoutMs (manual clock)", async () => {
    const clock = new ManualClock(0);
    server.enqueue({ hang: true });
    const pending = failure(model({ clock, timeoutMs: 5_000 }).invoke(["hi"]));
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    await clock.advance(5_000);
    const error = await pending;
    expect(error.code).toBe("MODEL_TIMEOUT");
    expect(error.message).toContain("within 5000 ms");
    expect(server.requests).toHaveLength(1);
  });

  it("malformed body → MODEL_BAD_RESPONSE, not retried", async () => {
    server.enqueue({ rawBody: "<html>502 Bad Gateway</html>" }, "never used");
    const error = await failure(model().invoke(["hi"]));
    expect(error.code).toBe("MODEL_BAD_RESPONSE");
    expect(error.details.responseBody).toContain("Bad Gateway");
    expect(server.requests).toHaveLength(1);
  });

  it("a JSON body that is not a completion → MODEL_BAD_RESPONSE", async () => {
    server.enqueue({ rawBody: JSON.stringify({ hello: "world" }) });
    expect((await failure(model().invoke(["hi"]))).code).toBe("MODEL_BAD_RESPONSE");
  });

  it("another 4xx → MODEL_REQUEST_REJECTED, not retried", async () => {
    server.enqueue({ status: 400 });
    const error = await failure(model().invoke(["hi"]));
    expect(error.code).toBe("MODEL_REQUEST_REJECTED");
    expect(error.details.status).toBe(400);
    expect(server.requests).toHaveLength(1);
  });

  it("an unreachable server → MODEL_UNAVAILABLE, retried", async () => {
    await server.close();
    const error = await failure(
      model({ retry: { maxRetries: 1, sleep: async (ms) => void sleeps.push(ms) } }).invoke(["hi"]),
    );
    server = await startFakeOpenAiServer(); // afterEach closes it
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.details.attempts).toBe(2);
    expect(sleeps).toEqual([1000]);
  });

  it("the caller's abort rejects with the signal's reason, is not a ModelError and is not retried", async () => {
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const reason = new Error("run cancelled");
    const pending = model().invoke(["hi"], { signal: controller.signal });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(sleeps).toEqual([]);
  });
});

describe("streaming errors", () => {
  it("429 before the first delta is retried; the stream then completes", async () => {
    server.enqueue({ status: 429, headers: { "retry-after": "1" } }, "streamed ok");
    const deltas = await drain(model().stream(["hi"]));
    const last = deltas.at(-1);
    expect(last?.type === "message" && last.message.content).toBe("streamed ok");
    expect(sleeps).toEqual([1000]);
  });

  it("401 on a stream → MODEL_AUTH", async () => {
    server.enqueue({ status: 401 });
    expect((await failure(drain(model().stream(["hi"])))).code).toBe("MODEL_AUTH");
  });

  it("a malformed SSE chunk → MODEL_BAD_RESPONSE", async () => {
    server.enqueue({
      rawBody: 'data: {"id":"x","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\ndata: {not json\n\n',
    });
    const seen: ChatDelta[] = [];
    const error = await failure(model().invoke(["hi"], { onChunk: (d) => seen.push(d) }));
    expect(error.code).toBe("MODEL_BAD_RESPONSE");
    expect(seen.map((d) => (d.type === "text" ? d.text : d.type))).toEqual(["Hel"]);
    expect(server.requests).toHaveLength(1);
  });

  it("timeout between chunks → MODEL_TIMEOUT (manual clock)", async () => {
    const clock = new ManualClock(0);
    server.enqueue({ hang: true });
    const pending = failure(drain(model({ clock, timeoutMs: 2_000 }).stream(["hi"])));
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    await clock.advance(2_000);
    expect((await pending).code).toBe("MODEL_TIMEOUT");
  });
});
