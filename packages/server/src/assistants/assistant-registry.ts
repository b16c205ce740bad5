import { randomUUID } from "node:crypto";
import { TrellisError } from "@trellis/checkpoint";
import type { ApiAssistant, ApiAssistantVersion } from "@trellis/protocol";
import { notFound } from "../http/http-errors.js";
import { checkId } from "../http/request-body.js";
import type {
  AssistantConfig,
  AssistantPatch,
  AssistantQuery,
  AssistantRecord,
  AssistantStore,
  AssistantVersionRecord,
} from "../stores/assistant-store.js";
import type { RunKwargs } from "../stores/run-store.js";
import type { HostedGraph } from "./graph-registry.js";

/**
 * Who asks: a user (null with auth off), or `"app"` (an application's own trusted code: sees all).
 *
 * @example
 * const mine = await registry.search({ limit: 10, offset: 0 }, { user: "ana" }); // system ones and Ana's
 * const all = await registry.search({ limit: 10, offset: 0 }, "app");
 */
export type AssistantPrincipal = { user: string | null } | "app";

/**
 * An assistant with the graph it runs.
 *
 * @example
 * const resolved: ResolvedAssistant | undefined = await registry.resolve("tutor");
 * if (resolved) console.log(resolved.assistant.version, resolved.hosted.graph.getGraph().nodes.length);
 */
export interface ResolvedAssistant {
  assistant: AssistantRecord;
  hosted: HostedGraph;
}

/**
 * What {@link AssistantRegistry.create} is given (the checked body of `POST /assistants`).
 *
 * @example
 * const input: NewAssistant = { graphId: "tutor", name: "Tutor (French)", context: { language: "fr" }, ifExists: "raise" };
 * const assistant = await registry.create(input, { user: "ana" });
 */
export interface NewAssistant {
  graphId: string;
  assistantId?: string | undefined;
  name?: string | undefined;
  description?: string | null | undefined;
  config?: AssistantConfig | undefined;
  context?: Record<string, unknown> | undefined;
  metadata?: Record<string, unknown> | undefined;
  ifExists?: "raise" | "do_nothing" | undefined;
}

/**
 * Parts of {@link AssistantRegistry}.
 *
 * @example
 * const parts: AssistantRegistryParts = { store: new SqliteAssistantStore(database), graphs, authEnabled: false };
 * const registry = new AssistantRegistry(parts);
 * await registry.syncSystem();
 */
export interface AssistantRegistryParts {
  store: AssistantStore;
  graphs: ReadonlyMap<string, HostedGraph>;
  authEnabled: boolean;
}

/**
 * `configurable` and `context` mirror each other, as LangGraph keeps them: an assistant (or run) that
 * gives one of them gets the other with the same values; one that gives both keeps both.
 */
function mirrored(
  config: AssistantConfig,
  context: Record<string, unknown>,
): { config: AssistantConfig; context: Record<string, unknown> } {
  const configurable = config.configurable ?? {};
  const hasConfigurable = Object.keys(configurable).length > 0;
  const hasContext = Object.keys(context).length > 0;
  if (hasConfigurable && !hasContext) return { config, context: { ...configurable } };
  if (hasContext && !hasConfigurable) return { config: { ...config, configurable: { ...context } }, context };
  return { config, context };
}

/**
 * Checks an assistant's config and context against the graph's declared config and context schemas
 * (when it has them), so a bad value is a 400 when the assistant is saved, not at its first run.
 */
function checkAgainstGraph(
  hosted: HostedGraph,
  config: AssistantConfig | undefined,
  context: Record<string, unknown> | undefined,
): void {
  try {
    hosted.graph.checkConfig({
      configurable: config?.configurable ?? {},
      ...(context && Object.keys(context).length > 0 ? { context } : {}),
    });
  } catch (error) {
    if (!(error instanceof TrellisError) || error.code !== "INVALID_CONFIG") throw error;
    const message = error.message.replace(/^The run's/, "The assistant's");
    throw new TrellisError("INVALID_CONFIG", message, { details: { ...error.details } });
  }
}

/**
 * The run options an assistant gives a run, under the run's own (the run wins key by key): its
 * `configurable` and `context` (what nodes read as `ctx.config.configurable`), its `recursion_limit`.
 *
 * @example
 * const kwargs = withAssistantConfig(assistant, { ...kwargs, config: { configurable: { model: "b" } } });
 * kwargs.config.configurable; // { ...assistant's, model: "b" }
 */
export function withAssistantConfig<K extends Pick<RunKwargs, "config" | "context">>(
  assistant: AssistantRecord,
  kwargs: K,
): K {
  const own = kwargs.config;
  const configurable = {
    ...assistant.config.configurable,
    ...assistant.context,
    ...own.configurable,
    ...kwargs.context,
  };
  const context = { ...assistant.context, ...kwargs.context };
  const recursionLimit = own.recursion_limit ?? assistant.config.recursion_limit;
  const config: RunKwargs["config"] = {
    ...own,
    ...(recursionLimit !== undefined ? { recursion_limit: recursionLimit } : {}),
    ...(Object.keys(configurable).length > 0 ? { configurable } : {}),
  };
  return { ...kwargs, config, ...(Object.keys(context).length > 0 ? { context } : {}) };
}

/**
 * The system assistant of a `trellis.json` entry as its version 1: id = graph id, no config,
 * `metadata.created_by: "system"`.
 *
 * @example
 * systemAssistant(graphs.get("tutor")).graphId; // "tutor"
 */
export function systemAssistant(hosted: HostedGraph, now = hosted.createdAt): AssistantRecord {
  return {
    assistantId: hosted.assistantId,
    graphId: hosted.assistantId,
    name: hosted.entry.name ?? hosted.assistantId,
    description: hosted.entry.description ?? null,
    config: {},
    context: {},
    metadata: { created_by: "system" },
    version: 1,
    createdAt: now,
    updatedAt: now,
    owner: null,
    system: true,
  };
}

/**
 * An assistant in the Agent Server's JSON shape.
 *
 * @example
 * assistantJson(record).assistant_id;
 */
export function assistantJson(a: AssistantRecord): ApiAssistant {
  return { ...assistantVersionJson(a), updated_at: a.updatedAt };
}

/**
 * A version of an assistant in the Agent Server's JSON shape (`getVersions`).
 *
 * @example
 * (await registry.versions(id, { limit: 10, offset: 0 }, "app")).map(assistantVersionJson);
 */
export function assistantVersionJson(a: AssistantVersionRecord): ApiAssistantVersion {
  return {
    assistant_id: a.assistantId,
    graph_id: a.graphId,
    name: a.name,
    description: a.description,
    config: a.config,
    context: a.context,
    metadata: a.metadata,
    version: a.version,
    created_at: a.createdAt,
  };
}

/**
 * Assistants as data: the one place that says who may see, change and run which assistant. The
 * `trellis.json` entries are the system assistants (id = graph id, `metadata.created_by: "system"`,
 * visible to every user, refused to delete); users create more of the same graphs with their own
 * config and context, owned by their creator when auth is on (others get a 404, as for threads). Every
 * door resolves assistant ids here — the Agent Server API, the run service (so AG-UI and app routes),
 * workers (from the shared store in scale-out) and crons.
 *
 * @example
 * const found = await registry.resolve("3f1c…");           // no access check: workers, crons
 * const mine = await registry.get("3f1c…", { user: "ana" }); // 404 unless ana may see it
 * mine.hosted.graph; mine.assistant.config.configurable;
 */
export class AssistantRegistry {
  readonly #p: AssistantRegistryParts;

  constructor(parts: AssistantRegistryParts) {
    this.#p = parts;
  }

  /** The store behind the registry. */
  get store(): AssistantStore {
    return this.#p.store;
  }

  /**
   * Writes the system assistants of the served graphs (their version 1 follows `trellis.json`'s name
   * and description; versions users added stay). Graph ids are reserved: a user's assistant that held a
   * graph's id (made before the graph joined `trellis.json`) is moved aside to `<id>.moved-<hex>`, still
   * its owner's, with `metadata.moved_from`; returns those moved, for the server to log.
   */
  async syncSystem(now = new Date().toISOString()): Promise<AssistantRecord[]> {
    await this.#p.store.setup();
    const moved: AssistantRecord[] = [];
    for (const hosted of this.#p.graphs.values()) {
      const aside = await this.#p.store.syncSystem(systemAssistant(hosted, now));
      if (aside) moved.push(aside);
    }
    return moved;
  }

  /**
   * The assistant and its graph, whoever asks (workers, crons, trusted code); undefined when there is
   * no such assistant or its graph is not served here.
   */
  async resolve(assistantId: string): Promise<ResolvedAssistant | undefined> {
    const assistant = await this.#p.store.get(assistantId);
    const hosted = assistant ? this.#p.graphs.get(assistant.graphId) : undefined;
    return assistant && hosted ? { assistant, hosted } : undefined;
  }

  /** The assistant and its graph if `as` may see it; otherwise a 404 (whether absent or someone else's). */
  async get(assistantId: string, as: AssistantPrincipal): Promise<ResolvedAssistant> {
    const found = await this.resolve(assistantId);
    if (!found || !this.#mayUse(found.assistant, as)) throw notFound("Assistant", assistantId);
    return found;
  }

  /** Creates an assistant of a served graph (version 1). */
  async create(input: NewAssistant, as: AssistantPrincipal): Promise<AssistantRecord> {
    const hosted = this.#graph(input.graphId);
    const assistantId = input.assistantId ?? randomUUID();
    checkId(assistantId, "assistant_id");
    if (this.#p.graphs.has(assistantId) && (input.ifExists ?? "raise") === "raise") {
      // a graph's id is its system assistant's, for every user: never a user's own assistant
      throw new TrellisError(
        "CONFLICT",
        `Assistant id "${assistantId}" is the id of graph "${assistantId}" of trellis.json, reserved for its shared assistant: pick another assistant_id (with graph_id "${input.graphId}").`,
        { details: { assistantId, reserved: true } },
      );
    }
    const owner = this.#ownerOf(as);
    const now = new Date().toISOString();
    const { config, context } = mirrored(input.config ?? {}, input.context ?? {});
    checkAgainstGraph(hosted, config, context);
    // the system mark is the server's: a user's assistant never carries it
    const { created_by: _system, ...given } = input.metadata ?? {};
    const metadata: Record<string, unknown> = { ...given, ...(owner !== null ? { owner } : {}) };
    const existing = await this.#p.store.get(assistantId);
    if (existing && !this.#mayUse(existing, as)) {
      // another user's id: the same answer as a taken id, without showing the assistant
      throw new TrellisError("CONFLICT", `Assistant "${assistantId}" already exists: pick another assistant_id.`);
    }
    const { record } = await this.#p.store.create(
      {
        assistantId,
        graphId: input.graphId,
        name: input.name ?? input.graphId,
        description: input.description ?? null,
        config,
        context,
        metadata,
        version: 1,
        createdAt: now,
        updatedAt: now,
        owner,
        system: false,
      },
      input.ifExists ?? "raise",
    );
    return record;
  }

  /** Adds a version made of the latest one and `patch`, and makes it the latest. */
  async update(assistantId: string, patch: AssistantPatch, as: AssistantPrincipal): Promise<AssistantRecord> {
    const { assistant } = await this.get(assistantId, as);
    this.#checkShared(assistant, as);
    if (patch.graphId !== undefined) {
      this.#graph(patch.graphId);
      if (assistant.system && patch.graphId !== assistant.graphId) {
        throw new TrellisError(
          "CONFLICT",
          `Assistant "${assistantId}" is the trellis.json entry of graph "${assistant.graphId}" and runs that graph: create an assistant of graph "${patch.graphId}" instead.`,
        );
      }
    }
    const next: AssistantPatch = { ...patch };
    if (patch.config !== undefined || patch.context !== undefined) {
      // what is given replaces the latest version's; the other one follows it (mirrored)
      const both =
        patch.config !== undefined && patch.context !== undefined
          ? { config: patch.config, context: patch.context }
          : patch.config !== undefined
            ? mirrored(patch.config, {})
            : mirrored({ ...assistant.config, configurable: {} }, patch.context ?? {});
      next.config = both.config;
      next.context = both.context;
    }
    if (patch.metadata) {
      const metadata = { ...patch.metadata };
      // the system mark is the server's, and so is the owner with auth on (as for threads)
      if (this.#p.authEnabled) delete metadata.owner;
      delete metadata.created_by;
      next.metadata = metadata;
    }
    if (patch.config !== undefined || patch.context !== undefined || patch.graphId !== undefined) {
      const graph = this.#graph(patch.graphId ?? assistant.graphId);
      checkAgainstGraph(graph, next.config ?? assistant.config, next.context ?? assistant.context);
    }
    const updated = await this.#p.store.update(assistantId, next, new Date().toISOString());
    if (!updated) throw notFound("Assistant", assistantId);
    return updated;
  }

  /** Deletes a user's assistant and all its versions; a system assistant is a 409. */
  async delete(assistantId: string, as: AssistantPrincipal): Promise<AssistantRecord> {
    const { assistant } = await this.get(assistantId, as);
    if (assistant.system) {
      throw new TrellisError(
        "CONFLICT",
        `Assistant "${assistantId}" is the trellis.json entry of graph "${assistant.graphId}": remove the entry from trellis.json to stop serving it. Its versions can be changed (update, setLatest) but it cannot be deleted.`,
        { details: { assistantId, graphId: assistant.graphId } },
      );
    }
    await this.#p.store.delete(assistantId);
    return assistant;
  }

  /** The assistant's versions, newest first. */
  async versions(
    assistantId: string,
    options: { metadata?: Record<string, unknown>; limit: number; offset: number },
    as: AssistantPrincipal,
  ): Promise<AssistantVersionRecord[]> {
    await this.get(assistantId, as);
    return this.#p.store.versions(assistantId, options);
  }

  /** Makes `version` the latest: runs use its config from now on. */
  async setLatest(assistantId: string, version: number, as: AssistantPrincipal): Promise<AssistantRecord> {
    this.#checkShared((await this.get(assistantId, as)).assistant, as);
    const updated = await this.#p.store.setLatest(assistantId, version, new Date().toISOString());
    if (!updated) {
      throw new TrellisError("NOT_FOUND", `Assistant "${assistantId}" has no version ${version}.`, {
        details: { assistantId, version },
      });
    }
    return updated;
  }

  /** The assistants `as` may see, of the graphs served here. */
  async search(query: AssistantQuery, as: AssistantPrincipal): Promise<AssistantRecord[]> {
    return this.#p.store.search({ ...query, ...this.#scope(as) });
  }

  /** How many assistants {@link search} would find without paging. */
  async count(query: Omit<AssistantQuery, "limit" | "offset">, as: AssistantPrincipal): Promise<number> {
    return this.#p.store.count({ ...query, ...this.#scope(as) });
  }

  #scope(as: AssistantPrincipal): { graphIds: string[]; visibleTo?: string | null } {
    const graphIds = [...this.#p.graphs.keys()];
    if (as === "app" || !this.#p.authEnabled) return { graphIds };
    return { graphIds, visibleTo: as.user };
  }

  #graph(graphId: string): HostedGraph {
    const hosted = this.#p.graphs.get(graphId);
    if (!hosted) {
      throw new TrellisError(
        "NOT_FOUND",
        `Graph "${graphId}" is not served here. Graphs: ${[...this.#p.graphs.keys()].join(", ") || "none"} (the entries of trellis.json).`,
        { details: { graphId } },
      );
    }
    return hosted;
  }

  /**
   * With auth on, the system assistants are every user's: no user may change the config the others'
   * runs get (a 403); their own assistants are for that. With auth off (one team, a dev server) anyone may.
   */
  #checkShared(assistant: AssistantRecord, as: AssistantPrincipal): void {
    if (!assistant.system || !this.#p.authEnabled || as === "app") return;
    throw new TrellisError(
      "FORBIDDEN",
      `Assistant "${assistant.assistantId}" is the trellis.json entry of graph "${assistant.graphId}", shared by every user: with auth on it changes only through trellis.json. Create an assistant of graph "${assistant.graphId}" with your own config instead.`,
      { details: { assistantId: assistant.assistantId } },
    );
  }

  #mayUse(assistant: AssistantRecord, as: AssistantPrincipal): boolean {
    if (as === "app" || !this.#p.authEnabled || assistant.system) return true;
    return assistant.owner === as.user;
  }

  #ownerOf(as: AssistantPrincipal): string | null {
    return as === "app" || !this.#p.authEnabled ? null : as.user;
  }
}
