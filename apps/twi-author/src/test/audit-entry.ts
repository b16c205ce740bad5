import type { AuditEntry } from "../audit/audit-store.js";

/** A finished conversation's row. @internal */
export const ENTRY: AuditEntry = {
  conversation_id: "conv-1",
  user_id: "user-1",
  tenant_id: "acme",
  channel: "telegram",
  intent: "generate_twi",
  llm_model: "mistral-large-latest",
  revision_count: 2,
  pdf_blob_name: "acme/conv-1/twi-r2.pdf",
  status: "completed",
  approval_timestamp: "2025-03-01T09:30:00.000Z",
};
