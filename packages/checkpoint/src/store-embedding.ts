import { TrellisError } from "./errors.js";
import type { StoreIndexConfig } from "./store.js";

/**
 * The texts of `value` at `fields` (see {@link StoreIndexConfig.fields}): strings as they are, other
 * values as JSON, missing fields skipped. `"$"` is the whole value as JSON.
 *
 * @example
 * textsAt({ text: "tea", notes: [{ t: "a" }, { t: "b" }] }, ["text", "notes[*].t"]); // ["tea", "a", "b"]
 */
export function textsAt(value: Record<string, unknown>, fields: readonly string[]): string[] {
  const out: string[] = [];
  for (const field of fields) {
    if (field === "$") {
      out.push(JSON.stringify(value));
      continue;
    }
    for (const found of walk([value], parsePath(field))) {
      if (found === undefined || found === null) continue;
      out.push(typeof found === "string" ? found : JSON.stringify(found));
    }
  }
  return out;
}

type Step = { key: string } | { index: number } | { all: true };

function parsePath(path: string): Step[] {
  const steps: Step[] = [];
  for (const part of path.split(".")) {
    const m = /^([^[\]]*)((?:\[(?:\*|\d+)\])*)$/.exec(part);
    if (!m)
      throw new TrellisError("INVALID_CONFIG", `Index field "${path}" is not a path like "a.b" or "notes[*].text".`);
    if (m[1]) steps.push({ key: m[1] });
    for (const idx of (m[2] ?? "").matchAll(/\[(\*|\d+)\]/g)) {
      steps.push(idx[1] === "*" ? { all: true } : { index: Number(idx[1]) });
    }
  }
  return steps;
}

function walk(values: unknown[], steps: readonly Step[]): unknown[] {
  let current = values;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if ("key" in step) {
        if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.hasOwn(v, step.key)) {
          next.push((v as Record<string, unknown>)[step.key]);
        }
      } else if (Array.isArray(v)) {
        if ("all" in step) next.push(...v);
        else if (step.index < v.length) next.push(v[step.index]);
      }
    }
    current = next;
  }
  return current;
}

/**
 * Cosine similarity of two vectors of the same length (0 when either is all zeros).
 *
 * @example
 * cosine([1, 0], [1, 1]); // 0.7071…
 */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Embeds `texts` with the index and checks what came back: one vector of `dims` numbers per text.
 * @internal
 */
export async function embedChecked(index: StoreIndexConfig, texts: string[]): Promise<number[][]> {
  if (texts.length === 0) return [];
  const vectors = await index.embed(texts);
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    throw new TrellisError(
      "INVALID_CONFIG",
      `The store's embed function returned ${Array.isArray(vectors) ? vectors.length : "no list of"} vectors for ${texts.length} texts: it must return one vector per text.`,
    );
  }
  for (const v of vectors) {
    if (!Array.isArray(v) || v.length !== index.dims) {
      throw new TrellisError(
        "INVALID_CONFIG",
        `The store's embed function returned a vector of ${Array.isArray(v) ? v.length : "no"} numbers; the index says dims: ${index.dims}.`,
      );
    }
  }
  return vectors;
}
