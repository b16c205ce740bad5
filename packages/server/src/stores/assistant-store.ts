import { randomBytes } from "node:crypto";

/**
 * Assistants as data: a graph of `trellis.json` with a config, a context and metadata, versioned. The
 * entries of `trellis.json` are the system-created assistants (id = graph id, `created_by: "system"`);
 * users create more of the same graphs with their own config.
 */

/**
 * An assistant's run config as the Agent Server stores it (`recursion_limit`, `configurable`, `tags`).
 *
 * @example
 * const config: AssistantConfig = { recursion_limit: 50, configurable: { model: "gpt-4o-mini" }, tags: ["beta"] };
 * await registry.create({ graphId: "tutor", config }, { user: null });
 */
export interface AssistantConfig {
  recursion_limit?: number;
  configurable?: Record<string, unknown>;
  tags?: string[];
  [key: string]: unknown;
}

/**
 * The fields of one version of an assistant.
 *
 * @example
 * const versions: AssistantVersionRecord[] = await registry.versions("tutor-fr", { limit: 10, offset: 0 }, { user: "ana" });
 */
export interface AssistantVersionRecord {
  assistantId: string;
  version: number;
  graphId: string;
  name: string;
  description: string | null;
  config: AssistantConfig;
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  createdAt: string;
}

/**
 * An assistant as stored: the fields of its latest version (the one runs use), and who may see it.
 * `createdAt` is when the assistant was created, `updatedAt` when its latest version last changed.
 *
 * @example
 * const record: AssistantRecord = await registry.update("tutor-fr", { name: "Tutor FR" }, { user: "ana" });
 * console.log(record.version, record.owner, record.system);
 */
export interface AssistantRecord extends AssistantVersionRecord {
  updatedAt: string;
  /** The user that created it when auth is on; null for system assistants and with auth off. */
  owner: string | null;
  /** Made from a `trellis.json` entry: visible to everyone, never deleted through the API. */
  system: boolean;
}

/**
 * What a search or count of assistants matches.
 *
 * @example
 * const filter: AssistantFilter = { graphId: "tutor", metadata: { team: "support" } };
 * const n = await registry.count(filter, { user: "ana" });
 */
export interface AssistantFilter {
  graphId?: string;
  /** Case-insensitive part of the name. */
  name?: string;
  /** Top-level keys that must equal these values. */
  metadata?: Record<string, unknown>;
  /** Only assistants of these graphs (the graphs this server serves). */
  graphIds?: readonly string[];
  /** Only system assistants and the assistants of this user (auth on). Undefined: all. */
  visibleTo?: string | null;
}

/**
 * A page of a search.
 *
 * @example
 * const query: AssistantQuery = { name: "tutor", limit: 20, offset: 0, sortBy: "updated_at", sortOrder: "desc" };
 * const page = await registry.search(query, { user: "ana" });
 */
export interface AssistantQuery extends AssistantFilter {
  limit: number;
  offset: number;
  sortBy?: "assistant_id" | "graph_id" | "name" | "created_at" | "updated_at";
  sortOrder?: "asc" | "desc";
}

/**
 * The fields an update sets (absent: kept from the latest version).
 *
 * @example
 * const patch: AssistantPatch = { config: { recursion_limit: 80 }, metadata: { reviewed: true } };
 * await registry.update("tutor-fr", patch, { user: "ana" }); // a new version, now the latest
 */
export interface AssistantPatch {
  graphId?: string;
  name?: string;
  description?: string | null;
  config?: AssistantConfig;
  context?: Record<string, unknown>;
  /** Merged into the latest version's metadata. */
  metadata?: Record<string, unknown>;
}

/**
 * Where assistants and their versions are kept: the SQLite file of the embedded server
 * (`SqliteAssistantStore`) or PostgreSQL in scale-out (`PostgresAssistantStore`), so every API and worker
 * process reads the same ones. Checks of who may do what live in `AssistantRegistry`, not here.
 *
 * @example
 * const store = new SqliteAssistantStore(saver.database);
 * await store.create(record, "raise");
 * (await store.get(record.assistantId))?.version; // 1
 */
export interface AssistantStore {
  /** Creates the tables when missing (idempotent; every method waits for it). */
  setup(): Promise<void>;
  get(assistantId: string): Promise<AssistantRecord | undefined>;
  /**
   * Stores a new assistant as its version 1. With an id in use: `raise` throws `CONFLICT`,
   * `do_nothing` returns the stored one (`created: false`).
   */
  create(
    record: AssistantRecord,
    ifExists: "raise" | "do_nothing",
  ): Promise<{ record: AssistantRecord; created: boolean }>;
  /** Adds a version (the highest number + 1) made of the latest one and `patch`, and makes it the latest. */
  update(assistantId: string, patch: AssistantPatch, now: string): Promise<AssistantRecord | undefined>;
  /**
   * Rewrites version 1 of a system assistant from its `trellis.json` entry (name, description), and the
   * assistant itself while version 1 is its latest. Creates it when missing. A user's assistant that
   * holds the id (made before the graph was added to `trellis.json`) is moved aside first, in the same
   * transaction: renamed to {@link asideId} with its versions and owner, `metadata.moved_from` naming
   * the id it had; it is returned as now stored.
   */
  syncSystem(record: AssistantRecord): Promise<AssistantRecord | undefined>;
  /** Deletes the assistant and all its versions; false when it did not exist. */
  delete(assistantId: string): Promise<boolean>;
  /** Versions, newest first. */
  versions(
    assistantId: string,
    options: { metadata?: Record<string, unknown>; limit: number; offset: number },
  ): Promise<AssistantVersionRecord[]>;
  /** Makes `version` the latest (the assistant takes its fields); undefined when there is no such version. */
  setLatest(assistantId: string, version: number, now: string): Promise<AssistantRecord | undefined>;
  search(query: AssistantQuery): Promise<AssistantRecord[]>;
  count(filter: AssistantFilter): Promise<number>;
  close(): Promise<void>;
}

/** The version fields of a record, made at `createdAt`. @internal */
export function versionOf(record: AssistantRecord, createdAt: string): AssistantVersionRecord {
  const { updatedAt: _u, owner: _o, system: _s, ...version } = record;
  return { ...version, createdAt };
}

/** The latest version after `patch`: what {@link AssistantStore.update} stores. @internal */
export function patched(latest: AssistantRecord, patch: AssistantPatch, version: number, now: string): AssistantRecord {
  return {
    ...latest,
    version,
    graphId: patch.graphId ?? latest.graphId,
    name: patch.name ?? latest.name,
    description: patch.description !== undefined ? patch.description : latest.description,
    config: patch.config ?? latest.config,
    context: patch.context ?? latest.context,
    metadata: patch.metadata ? { ...latest.metadata, ...patch.metadata } : latest.metadata,
    updatedAt: now,
  };
}

/** SQL sort column of a query (a fixed list, so safe to splice). @internal */
export function sortColumn(query: AssistantQuery): string {
  const allowed = new Set(["assistant_id", "graph_id", "name", "created_at", "updated_at"]);
  return query.sortBy && allowed.has(query.sortBy) ? query.sortBy : "created_at";
}

/**
 * The id a user's assistant is moved to when a `trellis.json` graph takes its id:
 * `<id>.moved-<8 random hex digits>`.
 *
 * @example
 * asideId("new-graph"); // "new-graph.moved-3f1c9a2b"
 */
export function asideId(assistantId: string): string {
  return `${assistantId}.moved-${randomBytes(4).toString("hex")}`;
}
