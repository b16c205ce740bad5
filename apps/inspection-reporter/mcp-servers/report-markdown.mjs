// The final inspection report as Dutch Markdown.
import { assess, FIELDS } from "./inspection-fields.mjs";

/**
 * @typedef {import("./report-store.mjs").StoredReport} StoredReport
 */

/**
 * The verdict of a report: it complies when hygiene was in order and no violations were found.
 * @param {StoredReport["data"]} data
 */
export function verdict(data) {
  const complies = data.hygiene_ok?.value === true && data.violations_found?.value === false;
  return complies ? "Voldoet" : "Voldoet niet — herinspectie aanbevolen";
}

/**
 * Renders a report.
 * @param {StoredReport} report
 * @param {{ inspectorName?: string, date: string }} options
 * @returns {string}
 */
export function renderReport(report, options) {
  const { data } = report;
  const show = (/** @type {string} */ field) => {
    const value = data[field]?.value;
    if (value === undefined) return "_onbekend_";
    if (value === true) return "ja";
    if (value === false) return "nee";
    return String(value);
  };
  const status = assess(data);
  const lines = [
    `# Inspectierapport ${show("company_name")}`,
    "",
    `- Rapportnummer: ${report.report_id}`,
    `- Datum: ${options.date}`,
    `- Inspecteur: ${options.inspectorName ?? "_niet ingesteld_"}`,
    "",
    "## Gegevens",
    "",
    ...FIELDS.filter((f) => f.field !== "violation_details" || data.violation_details !== undefined).map(
      (f) => `- ${f.label}: ${show(f.field)}`,
    ),
    "",
    "## Oordeel",
    "",
    `**${verdict(data)}**`,
    "",
    `Volledigheid ${status.completion_percentage}%, betrouwbaarheid ${status.overall_confidence.toFixed(2)}, ` +
      `${report.rounds} verificatieronde(s).`,
    "",
    "_Voorbeeldrapport op basis van voorbeeldgegevens (Trellis inspection-reporter); geen officieel NVWA-document._",
    "",
  ];
  return lines.join("\n");
}
