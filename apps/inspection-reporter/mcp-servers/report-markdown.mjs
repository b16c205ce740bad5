// The final inspection report as Dutch Markdown.
import { assess, FIELDS } from "./inspection-fields.mjs";

/**
 * @typedef {import("./report-store.mjs").StoredReport} StoredReport
 */

/**
 * The facts a verdict rests on that the report does not have: hygiene, violations, and the description
 * of violations that were found. Their labels, in form order.
 * @param {StoredReport["data"]} data
 * @returns {string[]}
 */
export function missingForVerdict(data) {
  const needed = [
    "hygiene_ok",
    "violations_found",
    ...(data.violations_found?.value === true ? ["violation_details"] : []),
  ];
  return FIELDS.filter((f) => needed.includes(f.field) && data[f.field] === undefined).map((f) => f.label);
}

/**
 * The verdict of a report: it complies when hygiene was in order and no violations were found. A fact
 * the verdict rests on that was not stated gives no verdict at all: the report never claims what the
 * inspector did not state.
 * @param {StoredReport["data"]} data
 */
export function verdict(data) {
  const missing = missingForVerdict(data);
  if (missing.length > 0) return `Geen oordeel — niet vastgesteld: ${missing.join(", ")}`;
  const complies = data.hygiene_ok?.value === true && data.violations_found?.value === false;
  return complies ? "Voldoet" : "Voldoet niet — herinspectie aanbevolen";
}

/**
 * A number as Dutch text: a decimal comma, `digits` decimals.
 * @param {number} value
 * @param {number} digits
 */
export function dutchNumber(value, digits) {
  return value.toFixed(digits).replace(".", ",");
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
    if (value === undefined) return "_niet vastgesteld_";
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
    ...(missingForVerdict(data).length > 0
      ? [`Ontbrekende gegevens: ${missingForVerdict(data).join(", ")}. Vul ze aan voor een oordeel.`, ""]
      : []),
    `Volledigheid ${status.completion_percentage}%, betrouwbaarheid ${dutchNumber(status.overall_confidence, 2)}, ` +
      `${report.rounds} verificatieronde(s).`,
    "",
    "_Voorbeeldrapport op basis van voorbeeldgegevens (Trellis inspection-reporter); geen officieel NVWA-document._",
    "",
  ];
  return lines.join("\n");
}
