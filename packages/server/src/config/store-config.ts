import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type ItemStoreOptions, TrellisError } from "@trellis/checkpoint";

/**
 * The `store` section of `trellis.json` (LangGraph's `langgraph.json` `store`): semantic search and TTL
 * of the Store API and of `ctx.store`. `index.embed` names a module and its export — an async function
 * from texts to vectors, such as `embedWith(model)` or `hashedBagOfWords(dims)` of `@trellis/models` —
 * as `"./src/embed.ts:embed"` (relative to the config) or `"some-package:embed"` (default export name
 * `embed`).
 *
 * @example
 * { "store": { "index": { "embed": "./src/embed.ts:embed", "dims": 256, "fields": ["text"] },
 *              "ttl": { "defaultTtl": 10080, "sweepIntervalMinutes": 60 } } }
 */
export interface StoreConfig {
  index?: { embed: string; dims: number; fields?: string[] };
  /** Minutes, as LangGraph's; LangGraph's snake_case names (`default_ttl`…) are read too. */
  ttl?: { defaultTtl?: number; refreshOnRead?: boolean; sweepIntervalMinutes?: number };
}

/** How often the server sweeps expired items when the config does not say. */
const DEFAULT_SWEEP_MINUTES = 60;

function fail(what: string): never {
  throw new TrellisError("INVALID_CONFIG", `store: ${what}`);
}

function positive(v: unknown, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !(v > 0)) fail(`${what} must be a number of minutes above 0.`);
  return v;
}

/**
 * Checks the `store` section and turns it into store options: loads the embed function, fills the
 * sweep interval. Throws INVALID_CONFIG saying what to fix.
 *
 * @example
 * const options = await storeOptionsOf(config.store, resolved.baseDir);
 */
export async function storeOptionsOf(config: unknown, baseDir: string): Promise<ItemStoreOptions> {
  if (config === undefined || config === null) return { ttl: { sweepIntervalMinutes: DEFAULT_SWEEP_MINUTES } };
  if (typeof config !== "object" || Array.isArray(config)) fail("must be an object: { index?, ttl? }.");
  const c = config as Record<string, unknown>;
  const ttl = (c.ttl ?? {}) as Record<string, unknown>;
  if (typeof ttl !== "object" || ttl === null || Array.isArray(ttl)) fail("ttl must be an object.");
  const refresh = ttl.refreshOnRead ?? ttl.refresh_on_read;
  if (refresh !== undefined && typeof refresh !== "boolean") fail("ttl.refreshOnRead must be true or false.");
  const defaultTtl = positive(ttl.defaultTtl ?? ttl.default_ttl, "ttl.defaultTtl");
  const sweep = positive(ttl.sweepIntervalMinutes ?? ttl.sweep_interval_minutes, "ttl.sweepIntervalMinutes");
  const options: ItemStoreOptions = {
    ttl: {
      sweepIntervalMinutes: sweep ?? DEFAULT_SWEEP_MINUTES,
      ...(defaultTtl !== undefined ? { defaultTtl } : {}),
      ...(refresh !== undefined ? { refreshOnRead: refresh as boolean } : {}),
    },
  };
  if (c.index !== undefined) {
    const index = c.index as Record<string, unknown>;
    if (typeof index !== "object" || index === null || typeof index.embed !== "string" || index.embed === "") {
      fail('index needs "embed": a module and export like "./src/embed.ts:embed".');
    }
    if (typeof index.dims !== "number" || !Number.isInteger(index.dims) || index.dims < 1) {
      fail("index.dims must be the whole number of dimensions of the embed function's vectors.");
    }
    const fields = index.fields;
    if (fields !== undefined && (!Array.isArray(fields) || fields.some((f) => typeof f !== "string"))) {
      fail('index.fields must be a list of paths into the value, like ["text"] ("$" is the whole value).');
    }
    options.index = {
      embed: await loadEmbed(index.embed as string, baseDir),
      dims: index.dims,
      ...(fields ? { fields: fields as string[] } : {}),
    };
  }
  return options;
}

async function loadEmbed(spec: string, baseDir: string): Promise<(texts: string[]) => Promise<number[][]>> {
  const at = spec.lastIndexOf(":");
  const path = at > 0 ? spec.slice(0, at) : spec;
  const name = at > 0 ? spec.slice(at + 1) : "embed";
  const local = path.startsWith(".") || isAbsolute(path);
  const specifier = local ? pathToFileURL(resolve(baseDir, path)).href : path;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    const hint = local
      ? ""
      : ` index.embed names a module and its export ("./src/embed.ts:embed"); LangGraph's "provider:model" strings are not read here: export embedWith(openai.embedding("text-embedding-3-small")) of @trellis/models from a module of yours.`;
    fail(`cannot load index.embed "${spec}": ${(error as Error).message}.${hint}`);
  }
  const embed = mod[name];
  if (typeof embed !== "function") {
    fail(`index.embed "${spec}": the module has no function export "${name}" (texts → Promise<number[][]>).`);
  }
  return embed as (texts: string[]) => Promise<number[][]>;
}
