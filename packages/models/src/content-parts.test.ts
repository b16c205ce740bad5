/**
 * Content blocks (text, image, file) wherever a message's text is read: normalised from the shapes
 * clients send, sent to real providers as their APIs take them (checked in the request bodies a local
 * server received), and read as text by the offline models.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageText } from "./content-parts.js";
import { normalizeMessage } from "./normalize-message.js";
import { type CreateChatModelOptions, createChatModel, type ProviderName } from "./providers.js";
import { RuleChatModel } from "./rule-chat-model.js";
import { ScriptedChatModel } from "./scripted-chat-model.js";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "./testing/index.js";

/** A 1×1 PNG, and a PDF's first bytes, as base64. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoK";

/** What a chat UI sends: OpenAI's content blocks with a remote image, an inline image and a PDF. */
const OPENAI_BLOCKS = [
  { type: "text", text: "What is on this label?" },
  { type: "image_url", image_url: { url: "https://example.com/label.png" } },
  { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "low" } },
  { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
];

describe("content blocks are read in every client shape", () => {
  it("OpenAI blocks become text, image and file parts; text-only blocks stay a string", () => {
    const m = normalizeMessage({ role: "user", content: OPENAI_BLOCKS });
    expect(m.content).toEqual([
      { type: "text", text: "What is on this label?" },
      { type: "image", url: "https://example.com/label.png" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "file", data: PDF, mimeType: "application/pdf", filename: "report.pdf" },
    ]);
    expect(messageText(m)).toBe("What is on this label?");
    expect(normalizeMessage({ type: "human", content: [{ type: "text", text: "a" }, "b"] }).content).toBe("ab");
  });

  it("LangChain's (v0.3 and v1) and Anthropic's image and file blocks", () => {
    const m = normalizeMessage({
      type: "human",
      content: [
        { type: "image", source_type: "url", url: "https://example.com/a.png" },
        { type: "image", source_type: "base64", data: PNG, mime_type: "image/png" },
        { type: "image", base64: PNG, mimeType: "image/png" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
        { type: "file", source_type: "base64", data: PDF, mime_type: "application/pdf", filename: "a.pdf" },
        { type: "text", text: "both?" },
      ],
    });
    expect(m.content).toEqual([
      { type: "image", url: "https://example.com/a.png" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "file", data: PDF, mimeType: "application/pdf", filename: "a.pdf" },
      { type: "text", text: "both?" },
    ]);
  });

  it("AG-UI's binary input content: an image or a file by its mime type", () => {
    const m = normalizeMessage({
      role: "user",
      content: [
        { type: "text", text: "See attached" },
        { type: "binary", mimeType: "image/png", data: PNG },
        { type: "binary", mimeType: "application/pdf", url: "https://example.com/r.pdf", filename: "r.pdf" },
      ],
    });
    expect(m.content).toEqual([
      { type: "text", text: "See attached" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "file", url: "https://example.com/r.pdf", mimeType: "application/pdf", filename: "r.pdf" },
    ]);
  });

  it("an assistant's non-text blocks (tool_use, reasoning) are left out of its text", () => {
    const m = normalizeMessage({
      type: "ai",
      content: [
        { type: "thinking", thinking: "hmm" },
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "t1", name: "f", input: {} },
      ],
      tool_calls: [{ id: "t1", name: "f", args: {} }],
    });
    expect(m).toMatchObject({ role: "assistant", content: "Looking.", toolCalls: [{ id: "t1", name: "f" }] });
  });

  it("blocks that cannot be sent are refused saying why", () => {
    const refused = (content: unknown) => () => normalizeMessage({ role: "user", content }, { index: 2 });
    expect(refused([{ type: "file", file: { file_id: "file-abc" } }])).toThrow(/Message 2 .*file_id.*file_data/);
    expect(refused([{ type: "input_audio", input_audio: {} }])).toThrow(/"input_audio" part; text, image/);
    expect(refused([{ type: "image", base64: PNG }])).toThrow(/needs its mime type/);
    expect(refused([{ type: "image_url", image_url: { url: "data:image/png,abc" } }])).toThrow(/must be base64/);
  });
});

describe("offline models read the text parts of a message with images", () => {
  const content = [
    { type: "text", text: "What does this weather chart say?" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
  ];

  it("RuleChatModel matches rules on the text and falls back with it", async () => {
    const model = new RuleChatModel({ rules: [{ when: /weather/i, reply: (ctx) => `text: ${ctx.text}` }] });
    expect((await model.invoke([{ role: "user", content }])).content).toBe("text: What does this weather chart say?");
    const silent = new RuleChatModel({ rules: [] });
    expect((await silent.invoke([{ role: "user", content }])).content).toContain('"What does this weather chart say?"');
  });

  it("ScriptedChatModel passes the parts to a reply function and estimates usage from the text", async () => {
    const model = new ScriptedChatModel([(messages) => `I read: ${messageText(messages.at(-1))}`]);
    const reply = await model.invoke([{ role: "user", content }]);
    expect(reply.content).toBe("I read: What does this weather chart say?");
    expect(model.calls[0]?.messages[0]?.content).toEqual([
      { type: "text", text: "What does this weather chart say?" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ]);
  });
});

describe("real providers receive the parts as their APIs take them", () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer([], () => "A shipping label.");
  });
  afterAll(async () => {
    await server.close();
  });

  const sent = async (provider: ProviderName, extra: Partial<CreateChatModelOptions> = {}) => {
    const before = server.requests.length;
    const model = createChatModel({ provider, model: "m-test", apiKey: "k", baseURL: server.url, ...extra });
    const reply = await model.invoke([{ role: "user", content: OPENAI_BLOCKS }]);
    expect(reply.content).toBe("A shipping label.");
    expect(server.requests).toHaveLength(before + 1);
    return server.requests.at(-1)?.body.messages.at(-1);
  };

  it.each(["openai", "openai-compatible"] as const)(
    "%s: image_url parts (the URL passed on, not fetched here; a data URL) and a file part",
    async (p) => {
      const message = await sent(p);
      expect(message.role).toBe("user");
      expect(message.content).toEqual([
        { type: "text", text: "What is on this label?" },
        { type: "image_url", image_url: { url: "https://example.com/label.png" } },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
      ]);
    },
  );

  it("azure: the same OpenAI shapes at the deployment", async () => {
    const message = await sent("azure", { baseURL: `${server.url.replace(/\/v1$/, "")}/openai` });
    expect(message.content.slice(0, 3)).toEqual([
      { type: "text", text: "What is on this label?" },
      { type: "image_url", image_url: { url: "https://example.com/label.png" } },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
  });

  it("mistral: image_url parts and the PDF as a document", async () => {
    const message = await sent("mistral");
    expect(message.content.slice(0, 3)).toEqual([
      { type: "text", text: "What is on this label?" },
      { type: "image_url", image_url: "https://example.com/label.png" },
      { type: "image_url", image_url: `data:image/png;base64,${PNG}` },
    ]);
    expect(message.content[3]).toEqual({ type: "document_url", document_url: `data:application/pdf;base64,${PDF}` });
  });
});

describe("google receives the parts as inline data", () => {
  let gemini: Server;
  let url: string;
  const bodies: Array<{ path: string; body: { contents: Array<{ role: string; parts: unknown[] }> } }> = [];
  beforeAll(async () => {
    gemini = createServer((req, res) => {
      let text = "";
      req.on("data", (c: Buffer) => {
        text += c.toString();
      });
      req.on("end", () => {
        if (req.url?.endsWith("label.png")) {
          res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from(PNG, "base64"));
          return;
        }
        bodies.push({ path: req.url ?? "", body: JSON.parse(text) });
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            candidates: [{ content: { role: "model", parts: [{ text: "A label." }] }, finishReason: "STOP" }],
            usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
          }),
        );
      });
    });
    gemini.listen(0, "127.0.0.1");
    await once(gemini, "listening");
    url = `http://127.0.0.1:${(gemini.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    gemini.closeAllConnections();
    gemini.close();
    await once(gemini, "close");
  });

  it("an inline image and a PDF as inlineData", async () => {
    const model = createChatModel({ provider: "google", model: "gemini-test", apiKey: "k", baseURL: `${url}/v1beta` });
    const content = [
      { type: "text", text: "What is on this label?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
    ];
    expect((await model.invoke([{ role: "user", content }])).content).toBe("A label.");
    const request = bodies.at(-1);
    expect(request?.path).toMatch(/gemini-test:generateContent$/);
    expect(request?.body.contents.at(-1)).toEqual({
      role: "user",
      parts: [
        { text: "What is on this label?" },
        { inlineData: { mimeType: "image/png", data: PNG } },
        { inlineData: { mimeType: "application/pdf", data: PDF } },
      ],
    });
  });

  it("an image URL is fetched for Google (its API takes none), never from a private address", async () => {
    const model = createChatModel({ provider: "google", model: "gemini-test", apiKey: "k", baseURL: `${url}/v1beta` });
    const before = bodies.length;
    const content = [
      { type: "text", text: "And this one?" },
      { type: "image_url", image_url: { url: `${url}/files/label.png` } },
    ];
    await expect(model.invoke([{ role: "user", content }])).rejects.toThrow(/127\.0\.0\.1 is not allowed/);
    expect(bodies).toHaveLength(before); // nothing was sent
  });
});
