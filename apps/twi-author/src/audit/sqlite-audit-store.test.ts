import { ManualClock } from "@trellis/core";
import { describe, expect, it } from "vitest";
import { ENTRY } from "../test/audit-entry.js";
import { SqliteAuditStore } from "./sqlite-audit-store.js";

describe("SqliteAuditStore", () => {
  it("writes one row per conversation with every field, and upserts a repeated write", async () => {
    const store = new SqliteAuditStore({ filename: ":memory:", clock: new ManualClock(Date.UTC(2025, 2, 1, 10)) });
    await store.record(ENTRY);
    await store.record({ ...ENTRY, revision_count: 3 });
    await store.record({ ...ENTRY, conversation_id: "conv-2" });
    expect(await store.get("conv-1")).toEqual({ ...ENTRY, revision_count: 3, created_at: "2025-03-01T10:00:00.000Z" });
    expect((await store.list()).map((r) => r.conversation_id)).toEqual(["conv-1", "conv-2"]);
    await store.close();
  });
});
