// Draft and final inspection reports as files under a data directory, so a report survives a restart
// of the MCP server (and of the app that started it) while the inspector is answering questions.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * @typedef {import("./inspection-fields.mjs").ReportData} ReportData
 * @typedef {{ report_id: string, created_at: string, status: "concept" | "onvolledig" | "definitief", data: ReportData,
 *   rounds: number, answers_log: { round: number, raw_response?: string, answers: unknown[] }[],
 *   rejected?: Record<string, string> }} StoredReport
 */

/**
 * A directory of reports: `<dir>/<report id>.json` (the draft) and `<dir>/<report id>.md` (the final
 * report). Writes go to a temporary file first and are renamed into place.
 */
export class ReportStore {
  /** @param {string} dir */
  constructor(dir) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  /**
   * A new, empty draft.
   * @param {Date} now
   * @returns {StoredReport}
   */
  create(now) {
    const day = now.toISOString().slice(0, 10).replace(/-/g, "");
    const report_id = `IR-${day}-${randomBytes(3).toString("hex")}`;
    const report = {
      report_id,
      created_at: now.toISOString(),
      status: "concept",
      data: {},
      rounds: 0,
      answers_log: [],
    };
    this.save(/** @type {StoredReport} */ (report));
    return /** @type {StoredReport} */ (report);
  }

  /**
   * @param {string} reportId
   * @returns {StoredReport | undefined}
   */
  get(reportId) {
    if (!/^IR-\d{8}-[0-9a-f]{6}$/.test(reportId)) return undefined;
    const file = join(this.dir, `${reportId}.json`);
    if (!existsSync(file)) return undefined;
    return JSON.parse(readFileSync(file, "utf8"));
  }

  /** @param {StoredReport} report */
  save(report) {
    this.#write(`${report.report_id}.json`, `${JSON.stringify(report, null, 2)}\n`);
  }

  /**
   * Stores the final report's text; returns the file's path.
   * @param {string} reportId
   * @param {string} markdown
   */
  saveMarkdown(reportId, markdown) {
    return this.#write(`${reportId}.md`, markdown);
  }

  /**
   * @param {string} name
   * @param {string} text
   */
  #write(name, text) {
    const file = join(this.dir, name);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, text);
    renameSync(temp, file);
    return file;
  }
}
