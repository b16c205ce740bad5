import type { SearchItem, Store, StoreItem } from "@trellis/checkpoint";
import { type Context, Hono } from "hono";
import { storeFor } from "../../stores/user-store.js";
import { field, invalid, readStoredBody } from "../request-body.js";
import type { ServerEnv } from "../server-context.js";

/** Most items or namespaces one request may ask for (LangGraph's platform caps pages too). */
const MAX_PAGE = 1000;

/** An item as the Agent Server API sends it (snake_case times, ISO strings). */
function wireItem(item: StoreItem | SearchItem): Record<string, unknown> {
  const out: Record<string, unknown> = {
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    created_at: item.createdAt.toISOString(),
    updated_at: item.updatedAt.toISOString(),
  };
  if ("score" in item && item.score !== undefined) out.score = item.score;
  return out;
}

function labels(body: Record<string, unknown>, key: string, required: boolean): string[] | undefined {
  const v = body[key];
  if (v === undefined || v === null) {
    if (!required) return undefined;
    throw invalid(`"${key}" is required: a list of labels, like ["memories", "ana"].`);
  }
  if (!Array.isArray(v) || v.some((l) => typeof l !== "string")) {
    throw invalid(`"${key}" must be a list of strings, like ["memories", "ana"].`);
  }
  // an item lives in a namespace of at least one label (a search prefix or a pattern may be empty)
  if (required && v.length === 0) throw invalid(`"${key}" must hold at least one label, like ["memories"].`);
  return v as string[];
}

function key(body: Record<string, unknown>): string {
  const k = field.string(body, "key");
  if (k === undefined || k === "") throw invalid(`"key" is required: the item's key within its namespace.`);
  return k;
}

/**
 * The Agent Server's Store API (`client.store.*` of the LangGraph SDK): `PUT|GET|DELETE /store/items`,
 * `POST /store/items/search`, `POST /store/namespaces`. With auth on, each user sees only their own
 * items (see `storeFor`).
 *
 * @example
 * app.route("/", storeRoutes(store));
 */
export function storeRoutes(store: Store, authEnabled: boolean): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const mine = (c: Context<ServerEnv>) => storeFor(store, authEnabled ? c.var.user : null);

  app.put("/store/items", async (c) => {
    const body = await readStoredBody(c);
    const namespace = labels(body, "namespace", true) as string[];
    const value = body.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw invalid(`"value" must be a JSON object, like {"text": "likes tea"}: wrap other values in an object.`);
    }
    const index = body.index;
    if (index !== undefined && index !== null && index !== false && !Array.isArray(index)) {
      throw invalid(`"index" must be false (do not embed this item) or a list of fields to embed, like ["text"].`);
    }
    const ttl = body.ttl;
    if (ttl !== undefined && ttl !== null && (typeof ttl !== "number" || !(ttl > 0))) {
      throw invalid(`"ttl" is in minutes: a positive number, or null for no expiry.`);
    }
    await mine(c).put(namespace, key(body), value as Record<string, unknown>, {
      ...(index === false || Array.isArray(index) ? { index: index as false | string[] } : {}),
      ...(ttl !== undefined ? { ttl: ttl as number | null } : {}),
    });
    return c.body(null, 204);
  });

  app.get("/store/items", async (c) => {
    const ns = c.req.query("namespace");
    const k = c.req.query("key");
    if (k === undefined || k === "") throw invalid(`The "key" query parameter is required.`);
    const namespace = ns === undefined || ns === "" ? [] : ns.split(".");
    if (namespace.length === 0) {
      throw invalid(
        `The "namespace" query parameter is required: labels joined with ".", like namespace=memories.ana.`,
      );
    }
    const refresh = c.req.query("refresh_ttl");
    if (refresh !== undefined && refresh !== "true" && refresh !== "false") {
      throw invalid(`"refresh_ttl" must be true or false.`);
    }
    const item = await mine(c).get(namespace, k, refresh === undefined ? {} : { refreshTtl: refresh === "true" });
    return c.json(item ? wireItem(item) : null);
  });

  app.delete("/store/items", async (c) => {
    const body = await readStoredBody(c);
    await mine(c).delete(labels(body, "namespace", true) as string[], key(body));
    return c.body(null, 204);
  });

  app.post("/store/items/search", async (c) => {
    const body = await readStoredBody(c);
    const prefix = labels(body, "namespace_prefix", false) ?? [];
    const filter = field.filter(body, "filter");
    const limit = field.int(body, "limit", { min: 0, max: MAX_PAGE });
    const offset = field.int(body, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER });
    const query = field.string(body, "query");
    const refreshTtl = field.boolean(body, "refresh_ttl");
    const items = await mine(c).search(prefix, {
      ...(filter ? { filter } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(offset !== undefined ? { offset } : {}),
      ...(query !== undefined ? { query } : {}),
      ...(refreshTtl !== undefined ? { refreshTtl } : {}),
    });
    return c.json({ items: items.map(wireItem) });
  });

  app.post("/store/namespaces", async (c) => {
    const body = await readStoredBody(c);
    const prefix = labels(body, "prefix", false);
    const suffix = labels(body, "suffix", false);
    const maxDepth = field.int(body, "max_depth", { min: 1, max: MAX_PAGE });
    const limit = field.int(body, "limit", { min: 0, max: MAX_PAGE });
    const offset = field.int(body, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER });
    const namespaces = await mine(c).listNamespaces({
      ...(prefix ? { prefix } : {}),
      ...(suffix ? { suffix } : {}),
      ...(maxDepth !== undefined ? { maxDepth } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(offset !== undefined ? { offset } : {}),
    });
    return c.json({ namespaces });
  });

  return app;
}
