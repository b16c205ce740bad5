/**
 * One row of `audit_log`: the seed's fields, one row per finished conversation.
 *
 * @example
 * const row: AuditEntry = { conversation_id: "c1", user_id: "u1", tenant_id: "acme", channel: "msteams", intent: "generate_twi",
 *   llm_model: "mistral-large-latest", revision_count: 1, pdf_blob_name: "acme/c1.pdf", status: "completed",
 *   approval_timestamp: "2025-01-02T10:00:00.000Z" };
 */
export interface AuditEntry {
  conversation_id: string;
  user_id: string;
  tenant_id: string;
  channel: string;
  intent: string | null;
  llm_model: string | null;
  revision_count: number;
  pdf_blob_name: string | null;
  status: string;
  approval_timestamp: string | null;
}

/**
 * A stored row: the entry and when it was written.
 *
 * @example
 * const row = await store.get("c1"); row?.created_at;
 */
export interface AuditRow extends AuditEntry {
  created_at: string;
}

/**
 * Where the audit node writes. `record` is an upsert on `conversation_id`, so a node that runs again
 * after a crash still leaves one row.
 *
 * @example
 * await store.record(entry);
 * (await store.list()).length; // 1
 */
export interface AuditStore {
  record(entry: AuditEntry): Promise<void>;
  get(conversationId: string): Promise<AuditRow | undefined>;
  /** Newest first. */
  list(options?: { limit?: number }): Promise<AuditRow[]>;
  close(): Promise<void>;
}

/**
 * The columns of `audit_log`, in order (the seed's fields, then `created_at`).
 *
 * @example
 * AUDIT_COLUMNS.length; // 11
 */
export const AUDIT_COLUMNS = [
  "conversation_id",
  "user_id",
  "tenant_id",
  "channel",
  "intent",
  "llm_model",
  "revision_count",
  "pdf_blob_name",
  "status",
  "approval_timestamp",
  "created_at",
] as const;
