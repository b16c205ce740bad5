import { TrellisError } from "@trellis/checkpoint";
import type { Database } from "better-sqlite3";
import {
  type AssistantFilter,
  type AssistantPatch,
  type AssistantQuery,
  type AssistantRecord,
  type AssistantStore,
  type AssistantVersionRecord,
  asideId,
  patched,
  sortColumn,
  versionOf,
} from "../assistant-store.js";

/**
 * The assistants' tables, as numbered migrations (own counter, so they never collide with the run
 * store's). Never edit a shipped one: add the next number.
 */
const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: "assistants and their versions",
    sql: `
      CREATE TABLE server_assistants (
        assistant_id TEXT PRIMARY KEY,
        graph_id TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT,
        config TEXT NOT NULL,
        context TEXT NOT NULL,
        metadata TEXT NOT NULL,
        version INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        owner TEXT,
        system INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX server_assistants_graph ON server_assistants (graph_id);
      CREATE TABLE server_assistant_versions (
        assistant_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        graph_id TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT,
        config TEXT NOT NULL,
        context TEXT NOT NULL,
        metadata TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (assistant_id, version)
      ) WITHOUT ROWID;
    `,
  },
];

interface VersionRow {
  assistant_id: string;
  version: number;
  graph_id: string;
  name: string;
  description: string | null;
  config: string;
  context: string;
  metadata: string;
  created_at: string;
}

interface AssistantRow extends VersionRow {
  updated_at: string;
  owner: string | null;
  system: number;
}

const json = (value: unknown): string => JSON.stringify(value ?? {});

function versionRow(r: VersionRow): AssistantVersionRecord {
  return {
    assistantId: r.assistant_id,
    version: r.version,
    graphId: r.graph_id,
    name: r.name,
    description: r.description,
    config: JSON.parse(r.config),
    context: JSON.parse(r.context),
    metadata: JSON.parse(r.metadata),
    createdAt: r.created_at,
  };
}

function assistantRow(r: AssistantRow): AssistantRecord {
  return { ...versionRow(r), updatedAt: r.updated_at, owner: r.owner, system: r.system === 1 };
}

/**
 * The embedded {@link AssistantStore}: assistants and their versions in the server's SQLite file,
 * beside the run store's tables (`server_assistants`, `server_assistant_versions`).
 *
 * @example
 * const store = new SqliteAssistantStore(saver.database);
 * const { record } = await store.create(assistant, "raise");
 */
export class SqliteAssistantStore implements AssistantStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    this.#migrate();
  }

  #migrate(): void {
    const db = this.#db;
    db.exec(
      "CREATE TABLE IF NOT EXISTS trellis_assistant_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
    );
    db.transaction(() => {
      const row = db.prepare("SELECT MAX(version) AS v FROM trellis_assistant_migrations").get() as {
        v: number | null;
      };
      for (const m of MIGRATIONS) {
        if (m.version <= (row.v ?? 0)) continue;
        db.exec(m.sql);
        db.prepare("INSERT INTO trellis_assistant_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
          m.version,
          m.name,
          new Date().toISOString(),
        );
      }
    }).immediate();
  }

  async setup(): Promise<void> {}

  async get(assistantId: string): Promise<AssistantRecord | undefined> {
    return this.#get(assistantId);
  }

  #get(assistantId: string): AssistantRecord | undefined {
    const row = this.#db.prepare("SELECT * FROM server_assistants WHERE assistant_id = ?").get(assistantId) as
      | AssistantRow
      | undefined;
    return row ? assistantRow(row) : undefined;
  }

  #insertVersion(v: AssistantVersionRecord): void {
    this.#db
      .prepare(
        `INSERT INTO server_assistant_versions (assistant_id, version, graph_id, name, description, config, context, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        v.assistantId,
        v.version,
        v.graphId,
        v.name,
        v.description,
        json(v.config),
        json(v.context),
        json(v.metadata),
        v.createdAt,
      );
  }

  #write(r: AssistantRecord): void {
    this.#db
      .prepare(
        `INSERT INTO server_assistants (assistant_id, graph_id, name, description, config, context, metadata, version, created_at, updated_at, owner, system)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (assistant_id) DO UPDATE SET graph_id = excluded.graph_id, name = excluded.name,
           description = excluded.description, config = excluded.config, context = excluded.context,
           metadata = excluded.metadata, version = excluded.version, updated_at = excluded.updated_at`,
      )
      .run(
        r.assistantId,
        r.graphId,
        r.name,
        r.description,
        json(r.config),
        json(r.context),
        json(r.metadata),
        r.version,
        r.createdAt,
        r.updatedAt,
        r.owner,
        r.system ? 1 : 0,
      );
  }

  async create(
    record: AssistantRecord,
    ifExists: "raise" | "do_nothing",
  ): Promise<{ record: AssistantRecord; created: boolean }> {
    return this.#db
      .transaction(() => {
        const existing = this.#get(record.assistantId);
        if (existing) {
          if (ifExists === "raise") throw taken(record.assistantId);
          return { record: existing, created: false };
        }
        const first = { ...record, version: 1 };
        this.#write(first);
        this.#insertVersion(versionOf(first, first.createdAt));
        return { record: first, created: true };
      })
      .immediate();
  }

  async update(assistantId: string, patch: AssistantPatch, now: string): Promise<AssistantRecord | undefined> {
    return this.#db
      .transaction(() => {
        const latest = this.#get(assistantId);
        if (!latest) return undefined;
        const top = this.#db
          .prepare("SELECT MAX(version) AS v FROM server_assistant_versions WHERE assistant_id = ?")
          .get(assistantId) as { v: number | null };
        const next = patched(latest, patch, (top.v ?? 0) + 1, now);
        this.#write(next);
        this.#insertVersion(versionOf(next, now));
        return next;
      })
      .immediate();
  }

  async syncSystem(record: AssistantRecord): Promise<AssistantRecord | undefined> {
    return this.#db
      .transaction(() => {
        let existing = this.#get(record.assistantId);
        let moved: AssistantRecord | undefined;
        if (existing && !existing.system) {
          // a user's assistant made before the graph joined trellis.json: moved aside, the id is the graph's
          const to = asideId(record.assistantId);
          this.#db
            .prepare(
              "UPDATE server_assistants SET assistant_id = ?, metadata = json_set(metadata, '$.moved_from', ?) WHERE assistant_id = ?",
            )
            .run(to, record.assistantId, record.assistantId);
          this.#db
            .prepare("UPDATE server_assistant_versions SET assistant_id = ? WHERE assistant_id = ?")
            .run(to, record.assistantId);
          moved = this.#get(to);
          existing = undefined;
        }
        if (!existing) {
          this.#write({ ...record, version: 1 });
          this.#insertVersion(versionOf({ ...record, version: 1 }, record.createdAt));
          return moved;
        }
        this.#db
          .prepare(
            "UPDATE server_assistant_versions SET name = ?, description = ? WHERE assistant_id = ? AND version = 1",
          )
          .run(record.name, record.description, record.assistantId);
        if (existing.version === 1 && (existing.name !== record.name || existing.description !== record.description)) {
          this.#db
            .prepare("UPDATE server_assistants SET name = ?, description = ? WHERE assistant_id = ?")
            .run(record.name, record.description, record.assistantId);
        }
        return undefined;
      })
      .immediate();
  }

  async delete(assistantId: string): Promise<boolean> {
    return this.#db
      .transaction(() => {
        this.#db.prepare("DELETE FROM server_assistant_versions WHERE assistant_id = ?").run(assistantId);
        return this.#db.prepare("DELETE FROM server_assistants WHERE assistant_id = ?").run(assistantId).changes > 0;
      })
      .immediate();
  }

  async versions(
    assistantId: string,
    options: { metadata?: Record<string, unknown>; limit: number; offset: number },
  ): Promise<AssistantVersionRecord[]> {
    const { clauses, args } = metadataClauses(options.metadata);
    const where = ["assistant_id = ?", ...clauses].join(" AND ");
    const rows = this.#db
      .prepare(`SELECT * FROM server_assistant_versions WHERE ${where} ORDER BY version DESC LIMIT ? OFFSET ?`)
      .all(assistantId, ...args, options.limit, options.offset) as VersionRow[];
    return rows.map(versionRow);
  }

  async setLatest(assistantId: string, version: number, now: string): Promise<AssistantRecord | undefined> {
    return this.#db
      .transaction(() => {
        const latest = this.#get(assistantId);
        const row = this.#db
          .prepare("SELECT * FROM server_assistant_versions WHERE assistant_id = ? AND version = ?")
          .get(assistantId, version) as VersionRow | undefined;
        if (!latest || !row) return undefined;
        const next: AssistantRecord = { ...latest, ...versionRow(row), createdAt: latest.createdAt, updatedAt: now };
        this.#write(next);
        return next;
      })
      .immediate();
  }

  async search(query: AssistantQuery): Promise<AssistantRecord[]> {
    const { where, args } = filterClauses(query);
    const order = query.sortOrder === "asc" ? "ASC" : "DESC";
    const rows = this.#db
      .prepare(
        `SELECT * FROM server_assistants ${where} ORDER BY ${sortColumn(query)} ${order}, assistant_id ${order} LIMIT ? OFFSET ?`,
      )
      .all(...args, query.limit, query.offset) as AssistantRow[];
    return rows.map(assistantRow);
  }

  async count(filter: AssistantFilter): Promise<number> {
    const { where, args } = filterClauses(filter);
    return (this.#db.prepare(`SELECT COUNT(*) AS n FROM server_assistants ${where}`).get(...args) as { n: number }).n;
  }

  async close(): Promise<void> {}
}

function taken(assistantId: string): TrellisError {
  return new TrellisError(
    "CONFLICT",
    `Assistant "${assistantId}" already exists: pass if_exists "do_nothing" to get it, or another assistant_id.`,
    { details: { assistantId } },
  );
}

function metadataClauses(metadata: Record<string, unknown> | undefined): { clauses: string[]; args: unknown[] } {
  const clauses: string[] = [];
  const args: unknown[] = [];
  for (const [key, value] of Object.entries(metadata ?? {})) {
    clauses.push("json_extract(metadata, ?) IS json_extract(?, '$')");
    args.push(`$."${key.replace(/"/g, '""')}"`, JSON.stringify(value));
  }
  return { clauses, args };
}

function filterClauses(filter: AssistantFilter): { where: string; args: unknown[] } {
  const { clauses, args } = metadataClauses(filter.metadata);
  if (filter.graphId !== undefined) {
    clauses.push("graph_id = ?");
    args.push(filter.graphId);
  }
  if (filter.graphIds) {
    clauses.push(`graph_id IN (${filter.graphIds.map(() => "?").join(", ") || "NULL"})`);
    args.push(...filter.graphIds);
  }
  if (filter.name !== undefined) {
    clauses.push("instr(lower(name), lower(?)) > 0");
    args.push(filter.name);
  }
  if (filter.visibleTo !== undefined) {
    clauses.push("(system = 1 OR owner IS ?)");
    args.push(filter.visibleTo);
  }
  return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", args };
}
