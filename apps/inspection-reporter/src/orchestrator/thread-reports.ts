import { rm } from "node:fs/promises";
import { join } from "node:path";

/** The id of an inspection report, as the inspection MCP server makes them. */
const REPORT_ID = /^IR-\d{8}-[0-9a-f]{6}$/;

interface StateMessage {
  role?: unknown;
  name?: unknown;
  content?: unknown;
  toolCallId?: unknown;
  toolCalls?: Array<{ id?: unknown; name?: unknown }>;
}

/**
 * The ids of the reports a thread started: the `report_id` of each `start_inspection_report` result in
 * its messages. Ids the inspector merely mentions are not the thread's and are left out.
 *
 * @example
 * reportIdsOf({ messages: [{ role: "tool", name: "start_inspection_report", content: '{"report_id":"IR-20250301-3f9a1c"}' }] });
 * // ["IR-20250301-3f9a1c"]
 */
export function reportIdsOf(values: Record<string, unknown> | undefined): string[] {
  const messages = Array.isArray(values?.messages) ? (values.messages as StateMessage[]) : [];
  const starts = new Set<unknown>();
  for (const m of messages) {
    for (const call of m.toolCalls ?? []) if (call.name === "start_inspection_report") starts.add(call.id);
  }
  const ids = new Set<string>();
  for (const m of messages) {
    if (m.role !== "tool" || typeof m.content !== "string") continue;
    if (m.name !== "start_inspection_report" && !starts.has(m.toolCallId)) continue;
    try {
      const id = (JSON.parse(m.content) as { report_id?: unknown }).report_id;
      if (typeof id === "string" && REPORT_ID.test(id)) ids.add(id);
    } catch {
      // an error result: no report was made
    }
  }
  return [...ids];
}

/**
 * Deletes the report files (`<id>.json`, the draft, and `<id>.md`, the final report) of the reports a
 * thread started, from the inspection server's report directory: what the app registers with the
 * server's `ctx.onThreadDeleted`, so a deleted thread leaves no report behind.
 *
 * @example
 * await deleteThreadReports(join(app.dataDir, "reports"), snapshot.values);
 */
export async function deleteThreadReports(
  reportsDir: string,
  values: Record<string, unknown> | undefined,
): Promise<string[]> {
  const ids = reportIdsOf(values);
  for (const id of ids) {
    await rm(join(reportsDir, `${id}.json`), { force: true });
    await rm(join(reportsDir, `${id}.md`), { force: true });
  }
  return ids;
}
