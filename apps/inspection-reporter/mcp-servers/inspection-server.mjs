#!/usr/bin/env node
// MCP server "inspection" (stdio): drafts, verifies and finalises food-safety inspection reports.
// Reports live as files in INSPECTION_DATA_DIR (default ./.trellis/inspection-reporter/reports).
// SAMPLE SYSTEM: a simplified stand-in for a real inspection back office.
import { resolve } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";
import {
  assess,
  descriptionAfterYes,
  FIELDS,
  fieldSpec,
  interpretAnswer,
  verificationQuestions,
} from "./inspection-fields.mjs";
import { missingForVerdict, renderReport, verdict } from "./report-markdown.mjs";
import { ReportStore } from "./report-store.mjs";

const json = (/** @type {unknown} */ value) => ({
  content: [{ type: /** @type {const} */ ("text"), text: JSON.stringify(value) }],
});
const failure = (/** @type {string} */ message) => ({
  content: [{ type: /** @type {const} */ ("text"), text: message }],
  isError: true,
});
const YES = /^(ja|j|yes|klopt|correct|juist)\b/i;

/**
 * The inspection MCP server over a report store.
 * @param {{ dataDir: string, now?: () => Date }} options
 */
export function createInspectionServer(options) {
  const store = new ReportStore(resolve(options.dataDir, "reports"));
  const now = options.now ?? (() => new Date());
  const server = new McpServer({ name: "inspection", version: "1.0.0" });
  const missingReport = (/** @type {string} */ id) =>
    failure(`Rapport "${id}" bestaat niet. Start eerst een rapport met start_inspection_report.`);

  server.registerTool(
    "start_inspection_report",
    {
      description:
        "Start a draft inspection report with the data found in the conversation. Returns report_id, " +
        "completion_percentage (0-100), overall_confidence (0-1) and missing_fields.",
      annotations: { idempotentHint: false },
      inputSchema: {
        company_name: z.string().optional().describe("Name of the inspected company"),
        kvk_number: z.string().optional().describe("KVK (Chamber of Commerce) number, 8 digits"),
        address: z.string().optional().describe("Address of the inspected location"),
        hygiene_ok: z.boolean().optional().describe("Whether hygiene was in order"),
        violations_found: z.boolean().optional().describe("Whether violations were found"),
        violation_details: z.string().optional().describe("Description of the violations"),
      },
    },
    async (args) => {
      const report = store.create(now());
      for (const spec of FIELDS) {
        const value = interpretAnswer(spec, /** @type {Record<string, unknown>} */ (args)[spec.field], "message");
        if (value) report.data[spec.field] = value;
      }
      store.save(report);
      return json({ report_id: report.report_id, ...assess(report.data) });
    },
  );

  server.registerTool(
    "verify_inspection_data",
    {
      description:
        "Verification questions for a draft report: each has question, field, importance and optional " +
        "options. Also returns completion_percentage and overall_confidence.",
      annotations: { readOnlyHint: true },
      inputSchema: { report_id: z.string().describe("The report_id from start_inspection_report") },
    },
    async ({ report_id }) => {
      const report = store.get(report_id);
      if (!report) return missingReport(report_id);
      const { completion_percentage, overall_confidence } = assess(report.data);
      return json({
        report_id,
        completion_percentage,
        overall_confidence,
        questions: verificationQuestions(report.data, report.rejected ?? {}),
      });
    },
  );

  server.registerTool(
    "submit_verification_answers",
    {
      description:
        "Store the inspector's answers to verification questions. Returns which answers were accepted, " +
        "the new completion_percentage and overall_confidence, and the fields still missing.",
      annotations: { idempotentHint: false },
      inputSchema: {
        report_id: z.string(),
        answers: z
          .array(z.object({ field: z.string(), answer: z.union([z.string(), z.boolean(), z.number()]) }))
          .describe("One entry per answered question"),
        raw_response: z.string().optional().describe("The inspector's reply as typed"),
      },
    },
    async ({ report_id, answers, raw_response }) => {
      const report = store.get(report_id);
      if (!report) return missingReport(report_id);
      /** @type {string[]} */
      const accepted = [];
      /** @type {{ field: string, reason: string }[]} */
      const rejected = [];
      for (const { field, answer } of answers) {
        const spec = fieldSpec(field);
        if (!spec) {
          rejected.push({ field, reason: "onbekend veld" });
          continue;
        }
        const current = report.data[field];
        // "ja" to "I noted X; is that right?" confirms X.
        if (current && spec.kind !== "yesno" && typeof answer === "string" && YES.test(answer.trim())) {
          report.data[field] = { ...current, confidence: 0.9, source: "answer" };
          accepted.push(field);
          continue;
        }
        const value = interpretAnswer(spec, answer, "answer");
        if (value) {
          report.data[field] = value;
          accepted.push(field);
          // "ja, de koelkast was 9 graden": the yes and the description the inspector gave with it
          const described =
            field === "violations_found" && value.value === true ? descriptionAfterYes(answer) : undefined;
          const detailsSpec = fieldSpec("violation_details");
          if (described && detailsSpec && !answers.some((a) => a.field === "violation_details")) {
            const details = interpretAnswer(detailsSpec, described, "answer");
            if (details) {
              report.data.violation_details = details;
              report.data[field] = { ...value, confidence: 0.95 };
              accepted.push("violation_details");
            }
          }
        } else rejected.push({ field, reason: `antwoord "${String(answer)}" niet bruikbaar` });
      }
      report.rounds += 1;
      // the next round asks these again, saying why the answer was not taken
      report.rejected = Object.fromEntries(rejected.map((r) => [r.field, r.reason]));
      report.answers_log.push({ round: report.rounds, answers, ...(raw_response ? { raw_response } : {}) });
      store.save(report);
      return json({ report_id, accepted, rejected, ...assess(report.data) });
    },
  );

  server.registerTool(
    "generate_final_report",
    {
      description: "Generate the final inspection report (Dutch Markdown) of a verified draft and store it.",
      annotations: { idempotentHint: true },
      inputSchema: {
        report_id: z.string(),
        inspector_name: z.string().optional().describe("Name of the inspector, from the user settings"),
      },
    },
    async ({ report_id, inspector_name }) => {
      const report = store.get(report_id);
      if (!report) return missingReport(report_id);
      const status = assess(report.data);
      if (status.completion_percentage < 50) {
        return failure(
          `Rapport ${report_id} is pas ${status.completion_percentage}% volledig; verifieer eerst de gegevens met verify_inspection_data.`,
        );
      }
      // a report that misses a fact its verdict rests on is not final: it can be completed later
      report.status = missingForVerdict(report.data).length > 0 ? "onvolledig" : "definitief";
      store.save(report);
      const markdown = renderReport(report, {
        date: now().toISOString().slice(0, 10),
        ...(inspector_name ? { inspectorName: inspector_name } : {}),
      });
      const file = store.saveMarkdown(report_id, markdown);
      return json({ report_id, status: report.status, verdict: verdict(report.data), ...status, file, markdown });
    },
  );
  return server;
}

if (process.argv.includes("--stdio")) {
  const dataDir = process.env.INSPECTION_DATA_DIR || resolve(".trellis", "inspection-reporter");
  await createInspectionServer({ dataDir }).connect(new StdioServerTransport());
}
