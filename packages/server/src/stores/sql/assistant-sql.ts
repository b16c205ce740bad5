/**
 * What the SQL assistant stores (SQLite, Postgres) share, written once over a {@link SqlDialect}:
 * assistant and version rows read back into records, the "already exists" error, and the filtered
 * search, count and version listing. Creating, updating and numbering versions stay per dialect (a
 * SQLite transaction, a Postgres advisory lock).
 */
import { TrellisError } from "@trellis/checkpoint";
import {
  type AssistantFilter,
  type AssistantQuery,
  type AssistantRecord,
  type AssistantVersionRecord,
  sortColumn,
} from "../assistant-store.js";
import { jsonColumn } from "./run-rows.js";
import { type Row, SqlArgs, type SqlDialect, type SqlExec } from "./sql-dialect.js";

/**
 * A `server_assistant_versions` row (or the version columns of a `server_assistants` row) as a record.
 *
 * @example
 * const versions = rows.map(versionFromRow);
 */
export function versionFromRow(r: Row): AssistantVersionRecord {
  return {
    assistantId: r.assistant_id as string,
    version: Number(r.version),
    graphId: r.graph_id as string,
    name: r.name as string,
    description: (r.description as string | null) ?? null,
    config: jsonColumn<AssistantVersionRecord["config"] | null>(r.config) ?? {},
    context: jsonColumn<Record<string, unknown> | null>(r.context) ?? {},
    metadata: jsonColumn<Record<string, unknown> | null>(r.metadata) ?? {},
    createdAt: r.created_at as string,
  };
}

/**
 * A `server_assistants` row as a record (`system` is a boolean in Postgres, 0/1 in SQLite).
 *
 * @example
 * const assistant = row ? assistantFromRow(row) : undefined;
 */
export function assistantFromRow(r: Row): AssistantRecord {
  // the keys added to the version's own object, not in a literal after a spread of it: that gives every
  // assistant read a hidden class of its own on V8, and each run reads one
  const assistant = versionFromRow(r) as AssistantRecord;
  assistant.updatedAt = r.updated_at as string;
  assistant.owner = (r.owner as string | null) ?? null;
  assistant.system = r.system === true || r.system === 1;
  return assistant;
}

/**
 * A record's values for the `server_assistants` upsert, in its column order (`assistant_id` … `owner`,
 * `system`); `system` as the dialect stores a boolean (Postgres a boolean, SQLite 0/1).
 *
 * @example
 * await c.query(upsertSql, assistantRowValues(record, (b) => b));
 */
export function assistantRowValues(r: AssistantRecord, bool: (value: boolean) => unknown): unknown[] {
  return [
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
    bool(r.system),
  ];
}

/**
 * A version's values for the `server_assistant_versions` insert, in its column order (`assistant_id`,
 * `version`, `graph_id`, `name`, `description`, `config`, `context`, `metadata`, `created_at`).
 *
 * @example
 * await c.query(insertVersionSql, versionRowValues(versionOf(record, now)));
 */
export function versionRowValues(v: AssistantVersionRecord): unknown[] {
  return [
    v.assistantId,
    v.version,
    v.graphId,
    v.name,
    v.description,
    json(v.config),
    json(v.context),
    json(v.metadata),
    v.createdAt,
  ];
}

/** An object column's text: `{}` for a missing one. */
function json(value: unknown): string {
  return JSON.stringify(value ?? {});
}

/**
 * The 409 of a create whose id is taken.
 *
 * @example
 * if (ifExists === "raise") throw assistantTaken(record.assistantId);
 */
export function assistantTaken(assistantId: string): TrellisError {
  return new TrellisError(
    "CONFLICT",
    `Assistant "${assistantId}" already exists: pass if_exists "do_nothing" to get it, or another assistant_id.`,
    { details: { assistantId } },
  );
}

/**
 * Assistant searches over one database: the filter, the search page, the count and a version page.
 *
 * @example
 * const queries = new SqlAssistantQueries(sqliteDialect, connection);
 * const page = await queries.search({ graphId: "tutor", limit: 10, offset: 0 });
 */
export class SqlAssistantQueries {
  readonly #d: SqlDialect;
  readonly #x: SqlExec;

  constructor(dialect: SqlDialect, exec: SqlExec) {
    this.#d = dialect;
    this.#x = exec;
  }

  #where(filter: AssistantFilter, a: SqlArgs): string {
    const clauses = this.#d.metadataMatches(filter.metadata ?? {}, a);
    if (filter.graphId !== undefined) clauses.push(`graph_id = ${a.p(filter.graphId)}`);
    if (filter.graphIds) clauses.push(this.#d.oneOf("graph_id", filter.graphIds, a));
    if (filter.name !== undefined) clauses.push(this.#d.containsText("name", a.p(filter.name)));
    if (filter.visibleTo !== undefined) {
      clauses.push(`(${this.#d.isTrue("system")} OR ${this.#d.sameAs("owner", a.p(filter.visibleTo))})`);
    }
    return clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
  }

  async search(query: AssistantQuery): Promise<AssistantRecord[]> {
    const a = new SqlArgs(this.#d);
    const where = this.#where(query, a);
    const order = query.sortOrder === "asc" ? "ASC" : "DESC";
    const rows = await this.#x.all(
      `SELECT * FROM ${this.#d.table("server_assistants")} ${where} ORDER BY ${sortColumn(query)} ${order}, assistant_id ${order}
       LIMIT ${a.p(query.limit)} OFFSET ${a.p(query.offset)}`,
      a.values,
      true,
    );
    return rows.map(assistantFromRow);
  }

  async count(filter: AssistantFilter): Promise<number> {
    const a = new SqlArgs(this.#d);
    const where = this.#where(filter, a);
    const [row] = await this.#x.all(
      `SELECT COUNT(*) AS n FROM ${this.#d.table("server_assistants")} ${where}`,
      a.values,
      true,
    );
    return Number(row?.n ?? 0);
  }

  async versions(
    assistantId: string,
    options: { metadata?: Record<string, unknown>; limit: number; offset: number },
  ): Promise<AssistantVersionRecord[]> {
    const a = new SqlArgs(this.#d);
    const where = [`assistant_id = ${a.p(assistantId)}`, ...this.#d.metadataMatches(options.metadata ?? {}, a)];
    const rows = await this.#x.all(
      `SELECT * FROM ${this.#d.table("server_assistant_versions")} WHERE ${where.join(" AND ")}
       ORDER BY version DESC LIMIT ${a.p(options.limit)} OFFSET ${a.p(options.offset)}`,
      a.values,
      true,
    );
    return rows.map(versionFromRow);
  }
}
