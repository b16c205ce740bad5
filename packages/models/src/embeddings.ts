import { embedMany } from "ai";

/**
 * Texts in, one vector per text out: what a store's `index.embed` takes (`StoreIndexConfig`).
 *
 * @example
 * const embed: EmbedTexts = hashedBagOfWords(256);
 * const [v] = await embed(["green tea"]);
 */
export type EmbedTexts = (texts: string[]) => Promise<number[][]>;

/**
 * An AI SDK embedding model: a provider's `.embedding("…")` or `.embeddingModel("…")`, or a model id string.
 *
 * @example
 * const model: AiSdkEmbeddingModel = openai.embedding("text-embedding-3-small");
 * const store = new MemoryStore({ index: { embed: embedWith(model), dims: 1536, fields: ["text"] } });
 */
export type AiSdkEmbeddingModel = Parameters<typeof embedMany>[0]["model"];

/**
 * Options of {@link embedWith}.
 *
 * @example
 * embedWith(model, { maxRetries: 4, maxParallelCalls: 2 });
 */
export interface EmbedWithOptions {
  /** Retries per call (AI SDK default 2). */
  maxRetries?: number;
  /** Calls at once when the texts are split over several calls. */
  maxParallelCalls?: number;
}

/**
 * Embeds through an AI SDK embedding model (`embedMany`), for a store's semantic search.
 *
 * @example
 * import { createOpenAI } from "@ai-sdk/openai";
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
 * const store = new SqliteStore({
 *   filename: "./memory.db",
 *   index: { embed: embedWith(openai.embedding("text-embedding-3-small")), dims: 1536, fields: ["text"] },
 * });
 */
export function embedWith(model: AiSdkEmbeddingModel, options: EmbedWithOptions = {}): EmbedTexts {
  return async (texts) => {
    if (texts.length === 0) return [];
    const { embeddings } = await embedMany({
      model,
      values: texts,
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.maxParallelCalls !== undefined ? { maxParallelCalls: options.maxParallelCalls } : {}),
    });
    return embeddings;
  };
}

function fnv1a(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/**
 * A deterministic offline embedding: feature hashing of the lower-cased words (weight 1) and their
 * character trigrams (weight 0.5, so "drink" and "drinks" are close), signed, L2-normalised. No model,
 * no network: for tests, demos and the offline mode of the apps. Texts sharing words score high; it
 * knows no synonyms.
 *
 * @example
 * const store = new MemoryStore({ index: { embed: hashedBagOfWords(256), dims: 256, fields: ["text"] } });
 */
export function hashedBagOfWords(dims = 256): EmbedTexts {
  if (!Number.isInteger(dims) || dims < 1) throw new RangeError(`dims must be a positive integer, got ${dims}`);
  const add = (v: number[], feature: string, weight: number) => {
    const h = fnv1a(feature, 2166136261);
    const sign = fnv1a(feature, 374761393) & 1 ? 1 : -1;
    v[h % dims] = (v[h % dims] ?? 0) + sign * weight;
  };
  return async (texts) =>
    texts.map((text) => {
      const v = new Array<number>(dims).fill(0);
      for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
        add(v, `w:${word}`, 1);
        const padded = `^${word}$`;
        for (let i = 0; i + 3 <= padded.length; i++) add(v, `g:${padded.slice(i, i + 3)}`, 0.5);
      }
      const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      return norm === 0 ? v : v.map((x) => x / norm);
    });
}
