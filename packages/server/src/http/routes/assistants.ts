import { type Context, Hono } from "hono";
import { assistantJson, assistantVersionJson } from "../../assistants/assistant-registry.js";
import { graphJson, xrayParam } from "../../assistants/graph-json.js";
import type { HostedGraph } from "../../assistants/graph-registry.js";
import { refuseReservedKeys } from "../../runs/run-identity.js";
import type { AssistantConfig, AssistantPatch, AssistantQuery } from "../../stores/assistant-store.js";
import { field, invalid, readStoredBody } from "../request-body.js";
import type { ServerContext, ServerEnv } from "../server-context.js";

const SORT_BY = ["assistant_id", "graph_id", "name", "created_at", "updated_at"] as const;
const SELECT = [
  "assistant_id",
  "graph_id",
  "name",
  "description",
  "config",
  "context",
  "created_at",
  "updated_at",
  "metadata",
  "version",
] as const;

/** The filter of a search or count body: `graph_id`, `name` (part of it, any case), `metadata`. */
function filterOf(body: Record<string, unknown>): Omit<AssistantQuery, "limit" | "offset"> {
  const graphId = field.string(body, "graph_id");
  const name = field.string(body, "name");
  const metadata = field.filter(body, "metadata");
  return {
    ...(graphId !== undefined ? { graphId } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
  };
}

/** An assistant's `config`: an object whose `configurable` is an object and `recursion_limit` an integer. */
function configOf(body: Record<string, unknown>): AssistantConfig | undefined {
  const config = field.object(body, "config");
  if (config === undefined) return undefined;
  field.object(config, "configurable");
  field.int(config, "recursion_limit", { min: 1, max: 10_000 });
  field.stringList(config, "tags");
  return config as AssistantConfig;
}

/**
 * The fields of a create or update body. An assistant's config and context reach every run of it, so
 * the keys that carry the run's user are refused here as on a run.
 */
function fieldsOf(body: Record<string, unknown>, authEnabled: boolean): AssistantPatch {
  const graphId = field.string(body, "graph_id");
  const name = field.string(body, "name");
  const description = field.string(body, "description");
  const config = configOf(body);
  const context = field.object(body, "context");
  refuseReservedKeys(config?.configurable, "config.configurable", authEnabled);
  refuseReservedKeys(context, "context", authEnabled);
  const metadata = field.object(body, "metadata");
  return {
    ...(graphId !== undefined ? { graphId } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(config !== undefined ? { config } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
  };
}

/**
 * `/assistants`: assistants as data. The graphs of `trellis.json` are the system assistants (id = graph
 * id); `POST /assistants` makes more of the same graphs with their own config and context, `PATCH` adds
 * a version, `/latest` picks the version runs use, `/versions` lists them; search, count, get, delete
 * (not of a system assistant: 409), and the graph drawing, schemas and subgraphs of an assistant's graph.
 * With auth on, an assistant belongs to its creator (others get a 404) and the system ones to everyone.
 *
 * @example
 * app.route("/assistants", assistantRoutes(ctx));
 */
export function assistantRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const as = (c: Context<ServerEnv>) => ({ user: c.var.user });
  /** The graph of the assistant in the path, if the caller may see it (else 404). */
  const hostedOf = async (c: Context<ServerEnv>): Promise<HostedGraph> =>
    (await ctx.assistants.get(c.req.param("assistant_id") as string, as(c))).hosted;

  app.post("/search", async (c) => {
    const body = await readStoredBody(c);
    const limit = field.int(body, "limit", { min: 1, max: 1000 }) ?? 10;
    const offset = field.int(body, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
    const sortBy = field.oneOf(body, "sort_by", SORT_BY);
    const sortOrder = field.oneOf(body, "sort_order", ["asc", "desc"] as const);
    const select = field.stringList(body, "select");
    const unknown = select?.filter((s) => !(SELECT as readonly string[]).includes(s)) ?? [];
    if (unknown.length)
      throw invalid(`"select" names unknown fields ${unknown.join(", ")}. Known: ${SELECT.join(", ")}.`);
    const filter = filterOf(body);
    const query: AssistantQuery = {
      ...filter,
      limit,
      offset,
      ...(sortBy ? { sortBy } : {}),
      ...(sortOrder ? { sortOrder } : {}),
    };
    const found = await ctx.assistants.search(query, as(c));
    const total = await ctx.assistants.count(filter, as(c));
    if (offset + found.length < total) c.header("X-Pagination-Next", String(offset + found.length));
    c.header("X-Pagination-Total", String(total));
    const page = found.map(assistantJson);
    if (!select) return c.json(page);
    return c.json(page.map((a) => Object.fromEntries(Object.entries(a).filter(([k]) => select.includes(k)))));
  });

  app.post("/count", async (c) => {
    const body = await readStoredBody(c);
    return c.json(await ctx.assistants.count(filterOf(body), as(c)));
  });

  app.post("/", async (c) => {
    const body = await readStoredBody(c);
    const { graphId, ...rest } = fieldsOf(body, ctx.authEnabled);
    if (graphId === undefined) throw invalid('"graph_id" is required: the graph of trellis.json the assistant runs.');
    const assistantId = field.string(body, "assistant_id");
    const ifExists = field.oneOf(body, "if_exists", ["raise", "do_nothing"] as const);
    const created = await ctx.assistants.create(
      {
        graphId,
        ...rest,
        ...(assistantId !== undefined ? { assistantId } : {}),
        ...(ifExists ? { ifExists } : {}),
      },
      as(c),
    );
    return c.json(assistantJson(created));
  });

  app.get("/:assistant_id", async (c) => {
    const { assistant } = await ctx.assistants.get(c.req.param("assistant_id"), as(c));
    return c.json(assistantJson(assistant));
  });

  app.patch("/:assistant_id", async (c) => {
    const body = await readStoredBody(c);
    return c.json(
      assistantJson(await ctx.assistants.update(c.req.param("assistant_id"), fieldsOf(body, ctx.authEnabled), as(c))),
    );
  });

  app.delete("/:assistant_id", async (c) => {
    const deleteThreads = ["true", "1"].includes(c.req.query("delete_threads") ?? "");
    const assistant = await ctx.assistants.delete(c.req.param("assistant_id"), as(c));
    if (deleteThreads) await deleteThreadsOf(ctx, assistant.assistantId, c.var.user);
    return c.body(null, 204);
  });

  app.post("/:assistant_id/versions", async (c) => {
    const body = await readStoredBody(c);
    const limit = field.int(body, "limit", { min: 1, max: 1000 }) ?? 10;
    const offset = field.int(body, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
    const metadata = field.filter(body, "metadata");
    const versions = await ctx.assistants.versions(
      c.req.param("assistant_id"),
      { limit, offset, ...(metadata ? { metadata } : {}) },
      as(c),
    );
    return c.json(versions.map(assistantVersionJson));
  });

  app.post("/:assistant_id/latest", async (c) => {
    const body = await readStoredBody(c);
    const version = field.int(body, "version", { min: 1, max: Number.MAX_SAFE_INTEGER });
    if (version === undefined) throw invalid('"version" is required: the version number runs should use.');
    return c.json(assistantJson(await ctx.assistants.setLatest(c.req.param("assistant_id"), version, as(c))));
  });

  app.get("/:assistant_id/graph", async (c) => {
    const xray = xrayParam(c.req.query("xray"));
    return c.json(graphJson((await hostedOf(c)).graph.getGraph({ xray })));
  });

  app.get("/:assistant_id/schemas", async (c) => {
    const hosted = await hostedOf(c);
    // JSON Schema built from the channels' declared schemas (a key without one is `{}`: anything)
    const schemas = hosted.graph.getSchemas();
    return c.json({
      graph_id: hosted.assistantId,
      input_schema: schemas.input,
      output_schema: schemas.output,
      state_schema: schemas.state,
      config_schema: schemas.config,
      context_schema: schemas.context,
    });
  });

  /** LangGraph's subgraph listing: namespace → the subgraph's schemas. */
  const subgraphs = async (c: Context<ServerEnv>, namespace?: string) => {
    const graph = (await hostedOf(c)).graph;
    const recurse = c.req.query("recurse") === "true" || c.req.query("recurse") === "1";
    const all = graph.getSubgraphs({ recurse: recurse || namespace !== undefined });
    const out: Record<string, unknown> = {};
    for (const [ns, sub] of Object.entries(all)) {
      if (namespace !== undefined && ns !== namespace && !(recurse && ns.startsWith(`${namespace}|`))) continue;
      out[ns] = {
        graph_id: sub.name,
        input_schema: sub.schemas.input,
        output_schema: sub.schemas.output,
        state_schema: sub.schemas.state,
        config_schema: sub.schemas.config,
      };
    }
    return c.json(out);
  };
  app.get("/:assistant_id/subgraphs", (c) => subgraphs(c));
  app.get("/:assistant_id/subgraphs/:namespace", (c) => subgraphs(c, c.req.param("namespace")));

  return app;
}

/**
 * `DELETE /assistants/{id}?delete_threads=true`: the threads whose latest run was the assistant's
 * (`metadata.assistant_id`) and that the caller may see go too, as a thread delete does it: their runs
 * cancelled, their checkpoints removed.
 */
async function deleteThreadsOf(ctx: ServerContext, assistantId: string, user: string | null): Promise<void> {
  const query = { metadata: { assistant_id: assistantId }, ...(ctx.authEnabled ? { owner: user } : {}) };
  for (;;) {
    const threads = await ctx.store.searchThreads({ ...query, limit: 100, offset: 0 });
    if (threads.length === 0) return;
    for (const thread of threads) await ctx.runs.deleteThread(thread);
  }
}
