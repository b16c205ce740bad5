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
  versionOf,
} from "../assistant-store.js";

import {
  assistantFromRow,
  assistantRowValues,
  assistantTaken,
  SqlAssistantQueries,
  versionFromRow,
  versionRowValues,
} from "../sql/assistant-sql.js";
import type { Row } from "../sql/sql-dialect.js";
import { sqliteDialect, sqliteExec } from "./sqlite-connection.js";
import { StatementCache } from "./statement-cache.js";

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

  readonly #queries: SqlAssistantQueries;
  /** Its fixed statements, each prepared once: `get` runs for every run the server starts. */
  readonly #statements: StatementCache;

  constructor(db: Database) {
    this.#db = db;
    this.#statements = new StatementCache(db);
    this.#migrate();
    this.#queries = new SqlAssistantQueries(sqliteDialect, sqliteExec(db));
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
    const row = this.#statements.get("SELECT * FROM server_assistants WHERE assistant_id = ?").get(assistantId) as
      | Row
      | undefined;
    return row ? assistantFromRow(row) : undefined;
  }

  #insertVersion(v: AssistantVersionRecord): void {
    this.#statements
      .get(
        `INSERT INTO server_assistant_versions (assistant_id, version, graph_id, name, description, config, context, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(...versionRowValues(v));
  }

  #write(r: AssistantRecord): void {
    this.#statements
      .get(
        `INSERT INTO server_assistants (assistant_id, graph_id, name, description, config, context, metadata, version, created_at, updated_at, owner, system)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (assistant_id) DO UPDATE SET graph_id = excluded.graph_id, name = excluded.name,
           description = excluded.description, config = excluded.config, context = excluded.context,
           metadata = excluded.metadata, version = excluded.version, updated_at = excluded.updated_at`,
      )
      .run(...assistantRowValues(r, (b) => (b ? 1 : 0)));
  }

  async create(
    record: AssistantRecord,
    ifExists: "raise" | "do_nothing",
  ): Promise<{ record: AssistantRecord; created: boolean }> {
    return this.#db
      .transaction(() => {
        const existing = this.#get(record.assistantId);
        if (existing) {
          if (ifExists === "raise") throw assistantTaken(record.assistantId);
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
        const top = this.#statements
          .get("SELECT MAX(version) AS v FROM server_assistant_versions WHERE assistant_id = ?")
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
          this.#statements
            .get(
              "UPDATE server_assistants SET assistant_id = ?, metadata = json_set(metadata, '$.moved_from', ?) WHERE assistant_id = ?",
            )
            .run(to, record.assistantId, record.assistantId);
          this.#statements
            .get("UPDATE server_assistant_versions SET assistant_id = ? WHERE assistant_id = ?")
            .run(to, record.assistantId);
          moved = this.#get(to);
          existing = undefined;
        }
        if (!existing) {
          this.#write({ ...record, version: 1 });
          this.#insertVersion(versionOf({ ...record, version: 1 }, record.createdAt));
          return moved;
        }
        this.#statements
          .get("UPDATE server_assistant_versions SET name = ?, description = ? WHERE assistant_id = ? AND version = 1")
          .run(record.name, record.description, record.assistantId);
        if (existing.version === 1 && (existing.name !== record.name || existing.description !== record.description)) {
          this.#statements
            .get("UPDATE server_assistants SET name = ?, description = ? WHERE assistant_id = ?")
            .run(record.name, record.description, record.assistantId);
        }
        return undefined;
      })
      .immediate();
  }

  async delete(assistantId: string): Promise<boolean> {
    return this.#db
      .transaction(() => {
        this.#statements.get("DELETE FROM server_assistant_versions WHERE assistant_id = ?").run(assistantId);
        return (
          this.#statements.get("DELETE FROM server_assistants WHERE assistant_id = ?").run(assistantId).changes > 0
        );
      })
      .immediate();
  }

  versions(
    assistantId: string,
    options: { metadata?: Record<string, unknown>; limit: number; offset: number },
  ): Promise<AssistantVersionRecord[]> {
    return this.#queries.versions(assistantId, options);
  }

  async setLatest(assistantId: string, version: number, now: string): Promise<AssistantRecord | undefined> {
    return this.#db
      .transaction(() => {
        const latest = this.#get(assistantId);
        const row = this.#statements
          .get("SELECT * FROM server_assistant_versions WHERE assistant_id = ? AND version = ?")
          .get(assistantId, version) as Row | undefined;
        if (!latest || !row) return undefined;
        const next: AssistantRecord = {
          ...latest,
          ...versionFromRow(row),
          createdAt: latest.createdAt,
          updatedAt: now,
        };
        this.#write(next);
        return next;
      })
      .immediate();
  }

  search(query: AssistantQuery): Promise<AssistantRecord[]> {
    return this.#queries.search(query);
  }

  count(filter: AssistantFilter): Promise<number> {
    return this.#queries.count(filter);
  }

  async close(): Promise<void> {}
}
