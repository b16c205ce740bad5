import { describe, expect, it } from "vitest";
import { BaseChatModel, type ChatDelta, type ChatRequest } from "./chat-model.js";
import { type AssistantMessage, assistantMessage, type Message } from "./messages.js";
import { ModelError } from "./model-errors.js";

class EchoModel extends BaseChatModel {
  readonly provider = "echo";
  readonly model = "echo-1";
  generateCalls = 0;
  lastRequest: ChatRequest | undefined;
  protected async generate(messages: Message[], request: ChatRequest): Promise<AssistantMessage> {
    this.generateCalls++;
    this.lastRequest = request;
    return assistantMessage(`echo: ${messages.at(-1)?.content}`, { id: "m1" });
  }
}

class BrokenStreamModel extends EchoModel {
  protected override async *streamDeltas(): AsyncIterable<ChatDelta> {
    yield { type: "text", messageId: "m1", text: "partial" };
  }
}

describe("BaseChatModel.invoke", () => {
  it("normalises LangChain-shaped input before the model sees it", async () => {
    const reply = await new EchoModel().invoke([{ type: "human", content: "hola" }]);
    expect(reply).toEqual({ id: "m1", role: "assistant", content: "echo: hola" });
  });

  it("streams to onChunk (word chunks, then the message) and resolves to the same message", async () => {
    const seen: ChatDelta[] = [];
    const reply = await new EchoModel().invoke(["two words"], { onChunk: (d) => seen.push(d) });
    expect(seen.filter((d) => d.type === "text").map((d) => (d.type === "text" ? d.text : ""))).toEqual([
      "echo:",
      " two",
      " words",
    ]);
    expect(seen.at(-1)).toEqual({ type: "message", message: reply });
    expect(seen.every((d) => d.type === "message" || d.messageId === "m1")).toBe(true);
  });

  it("does not pass the listener on to the implementation", async () => {
    const model = new EchoModel();
    await model.invoke(["x"], { onChunk: () => {}, temperature: 0.2 });
    expect(model.lastRequest).toEqual({ temperature: 0.2 });
  });

  it("without onChunk (or with onChunk: false) it does not stream: there is no process-wide sink", async () => {
    class CountingStreams extends EchoModel {
      streams = 0;
      protected override async *streamDeltas(messages: Message[], request: ChatRequest): AsyncIterable<ChatDelta> {
        this.streams++;
        yield* super.streamDeltas(messages, request);
      }
    }
    const model = new CountingStreams();
    await model.invoke(["a"]);
    await model.invoke(["a"], { onChunk: false });
    expect(model.streams).toBe(0);
    await model.invoke(["a"], { onChunk: () => {} });
    expect(model.streams).toBe(1);
  });

  it("rejects at once with the signal's reason when already aborted, without calling the model", async () => {
    const model = new EchoModel();
    const controller = new AbortController();
    const reason = new Error("cancelled by the run");
    controller.abort(reason);
    await expect(model.invoke(["x"], { signal: controller.signal })).rejects.toBe(reason);
    expect(model.generateCalls).toBe(0);
  });

  it("fails with MODEL_BAD_RESPONSE when a stream ends without its message", async () => {
    const error = await new BrokenStreamModel().invoke(["x"], { onChunk: () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe("MODEL_BAD_RESPONSE");
  });
});

describe("BaseChatModel.stream", () => {
  it("yields word chunks then the full message, and also feeds onChunk", async () => {
    const heard: ChatDelta[] = [];
    const deltas: ChatDelta[] = [];
    for await (const d of new EchoModel().stream(["hi"], { onChunk: (d) => heard.push(d) })) deltas.push(d);
    expect(deltas.map((d) => d.type)).toEqual(["text", "text", "message"]);
    expect(heard).toEqual(deltas);
  });

  it("throws MODEL_BAD_RESPONSE when the implementation's stream has no final message", async () => {
    const run = async () => {
      for await (const _ of new BrokenStreamModel().stream(["x"])) {
        // drain
      }
    };
    await expect(run()).rejects.toMatchObject({ code: "MODEL_BAD_RESPONSE" });
  });
});
