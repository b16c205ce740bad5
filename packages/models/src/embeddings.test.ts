import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { cosine, MemoryStore } from "@trellis/checkpoint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedWith, hashedBagOfWords } from "./embeddings.js";

describe("hashedBagOfWords", () => {
  it("is deterministic, normalised, of the asked size, and puts texts sharing words closer", async () => {
    const embed = hashedBagOfWords(128);
    const [tea, teaAgain, drinks, bike, empty] = (await embed([
      "Ana drinks green tea",
      "Ana drinks green tea",
      "what does ana drink",
      "Bo rides a bike",
      "",
    ])) as number[][];
    expect(tea).toHaveLength(128);
    expect(teaAgain).toEqual(tea);
    expect(Math.hypot(...(tea as number[]))).toBeCloseTo(1, 9);
    expect(cosine(tea as number[], drinks as number[])).toBeGreaterThan(cosine(tea as number[], bike as number[]));
    expect(empty?.every((x) => x === 0)).toBe(true);
  });

  it("gives a store offline semantic search", async () => {
    const store = new MemoryStore({ index: { embed: hashedBagOfWords(256), dims: 256, fields: ["text"] } });
    await store.put(["m"], "tea", { text: "Ana drinks green tea every morning" });
    await store.put(["m"], "bike", { text: "Bo rides a bike to work" });
    const [best] = await store.search(["m"], { query: "which tea does Ana drink?" });
    expect(best?.key).toBe("tea");
    expect(best?.score).toBeGreaterThan(0);
  });
});

describe("embedWith (an AI SDK embedding model)", () => {
  const offline = hashedBagOfWords(16);
  const bodies: Array<{ input: string[]; model: string }> = [];
  // an OpenAI-compatible /embeddings endpoint on loopback, answering with the offline vectors
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", async () => {
      const body = JSON.parse(raw) as { input: string[]; model: string };
      bodies.push(body);
      const vectors = await offline(body.input);
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          object: "list",
          model: body.model,
          data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
          usage: { prompt_tokens: 3, total_tokens: 3 },
        }),
      );
    });
  });
  let baseURL = "";
  beforeAll(async () => {
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("embeds through the provider's HTTP API and feeds a store's index", async () => {
    const provider = createOpenAICompatible({ name: "local", baseURL, apiKey: "k" });
    const embed = embedWith(provider.embeddingModel("hash-16"), { maxRetries: 0 });
    expect(await embed(["green tea"])).toEqual(await offline(["green tea"]));
    expect(bodies[0]).toMatchObject({ model: "hash-16", input: ["green tea"] });
    expect(await embed([])).toEqual([]);
    const store = new MemoryStore({ index: { embed, dims: 16, fields: ["text"] } });
    await store.put(["m"], "a", { text: "green tea" });
    const [hit] = await store.search(["m"], { query: "green tea" });
    expect(hit?.score).toBeCloseTo(1, 6);
  });
});
