// The fields of an inspection report, how answers fill them, and how complete and reliable a draft is.
// Used by inspection-server.mjs. SAMPLE DOMAIN MODEL: a simplified stand-in for a real inspection form.

/**
 * @typedef {"critical" | "high" | "medium"} Importance
 * @typedef {"text" | "kvk" | "address" | "yesno"} FieldKind
 * @typedef {{ value: string | boolean, confidence: number, source: "message" | "answer" }} FieldValue
 * @typedef {Record<string, FieldValue>} ReportData
 * @typedef {{ field: string, label: string, question: string, importance: Importance, kind: FieldKind,
 *   options?: string[], requiredWhen?: (data: ReportData) => boolean }} FieldSpec
 */

/** Below this confidence a filled field is asked again. */
export const RECONFIRM_BELOW = 0.6;
/** Most questions one verification round asks. */
export const QUESTIONS_PER_ROUND = 3;

/** @type {FieldSpec[]} */
export const FIELDS = [
  {
    field: "company_name",
    label: "Bedrijfsnaam",
    question: "Wat is de naam van het geïnspecteerde bedrijf?",
    importance: "critical",
    kind: "text",
  },
  {
    field: "kvk_number",
    label: "KVK-nummer",
    question: "Wat is het KVK-nummer van het bedrijf (8 cijfers)?",
    importance: "critical",
    kind: "kvk",
  },
  {
    field: "address",
    label: "Adres",
    question: "Wat is het adres van de inspectielocatie?",
    importance: "critical",
    kind: "address",
  },
  {
    field: "hygiene_ok",
    label: "Hygiëne in orde",
    question: "Was de hygiëne in orde?",
    importance: "high",
    kind: "yesno",
    options: ["ja", "nee"],
  },
  {
    field: "violations_found",
    label: "Overtredingen geconstateerd",
    question: "Zijn er overtredingen geconstateerd?",
    importance: "high",
    kind: "yesno",
    options: ["ja", "nee"],
  },
  {
    field: "violation_details",
    label: "Toelichting overtredingen",
    question: "Welke overtredingen zijn er geconstateerd?",
    importance: "high",
    kind: "text",
    requiredWhen: (data) => data.violations_found?.value === true,
  },
];

const RANK = { critical: 0, high: 1, medium: 2 };
const YES = new Set([
  "ja",
  "j",
  "yes",
  "y",
  "klopt",
  "jazeker",
  "zeker",
  "in orde",
  "ok",
  "oke",
  "oké",
  "goed",
  "akkoord",
]);
const NO = new Set(["nee", "n", "no", "neen", "niet", "niet in orde", "geen", "fout", "slecht"]);
const UNKNOWN = /^(weet (ik )?niet|onbekend|geen idee|\?+|-|n\.?v\.?t\.?)$/i;

/**
 * The fields a draft must have: every field without a condition, and conditional ones whose condition
 * holds.
 * @param {ReportData} data
 * @returns {FieldSpec[]}
 */
export function requiredFields(data) {
  return FIELDS.filter((f) => !f.requiredWhen || f.requiredWhen(data));
}

/**
 * Interprets one answer for a field. Returns undefined when the answer does not fill the field
 * (empty, "weet ik niet", an invalid KVK number, a yes/no question answered with something else).
 * @param {FieldSpec} spec
 * @param {unknown} raw
 * @param {"message" | "answer"} source
 * @returns {FieldValue | undefined}
 */
export function interpretAnswer(spec, raw, source) {
  if (typeof raw === "boolean") return spec.kind === "yesno" ? { value: raw, confidence: 0.95, source } : undefined;
  if (typeof raw !== "string" && typeof raw !== "number") return undefined;
  const text = String(raw).trim().replace(/\s+/g, " ");
  if (!text || UNKNOWN.test(text)) return undefined;
  switch (spec.kind) {
    case "yesno": {
      const word = text.toLowerCase().replace(/[.!]+$/, "");
      if (YES.has(word)) return { value: true, confidence: 0.95, source };
      if (NO.has(word)) return { value: false, confidence: 0.95, source };
      if (/^(ja|yes)\b/i.test(word)) return { value: true, confidence: 0.8, source };
      if (/^(nee|no|niet)\b/i.test(word)) return { value: false, confidence: 0.8, source };
      return undefined;
    }
    case "kvk": {
      // "12345678", "1234 5678", "KVK is 12345678": exactly eight digits, however written
      const digits = text.replace(/\D/g, "");
      return /^\d{8}$/.test(digits) ? { value: digits, confidence: 0.95, source } : undefined;
    }
    case "address": {
      const address = capitalise(text);
      // A street with a house number is an address; a bare place name is a guess.
      return /\d/.test(address)
        ? { value: address, confidence: 0.9, source }
        : { value: address, confidence: 0.5, source };
    }
    default: {
      // "ja, schimmel in de opslag" to "which violations?": the description, without the yes
      const said = spec.field === "violation_details" ? text.replace(/^(?:ja|yes|klopt)\b[\s,:;.-]*/i, "") : text;
      return said.length >= 2 ? { value: said, confidence: source === "answer" ? 0.9 : 0.85, source } : undefined;
    }
  }
}

/**
 * The description a yes carries: "ja, de koelkast was 9 graden" → "de koelkast was 9 graden"; undefined
 * for a bare yes or a no.
 * @param {unknown} raw
 * @returns {string | undefined}
 */
export function descriptionAfterYes(raw) {
  if (typeof raw !== "string") return undefined;
  const m = /^(?:ja|yes|klopt|wel)\b[\s,:;.-]*(.+)$/is.exec(raw.trim());
  const rest = m?.[1]?.trim().replace(/[.!]+$/, "");
  return rest && rest.length >= 3 ? rest : undefined;
}

/**
 * How complete (percentage of required fields filled) and how reliable (mean confidence of the
 * filled fields, lowered when violations were found but not described) a draft is.
 * @param {ReportData} data
 * @returns {{ completion_percentage: number, overall_confidence: number, missing_fields: string[], low_confidence_fields: string[] }}
 */
export function assess(data) {
  const required = requiredFields(data);
  const filled = required.filter((f) => data[f.field] !== undefined);
  const missing = required.filter((f) => data[f.field] === undefined).map((f) => f.field);
  const confidences = filled.map((f) => /** @type {FieldValue} */ (data[f.field]).confidence);
  let confidence = confidences.length ? confidences.reduce((a, b) => a + b, 0) / confidences.length : 0;
  // Violations without a description make the report unreliable, however sure the other fields are.
  if (data.violations_found?.value === true && data.violation_details === undefined) confidence -= 0.3;
  const low = filled.filter((f) => /** @type {FieldValue} */ (data[f.field]).confidence < RECONFIRM_BELOW);
  return {
    completion_percentage: required.length ? Math.round((filled.length / required.length) * 100) : 100,
    overall_confidence: Math.max(0, Math.round(confidence * 100) / 100),
    missing_fields: missing,
    low_confidence_fields: low.map((f) => f.field),
  };
}

/**
 * The next verification questions: missing required fields, then fields to reconfirm, most
 * important first, at most {@link QUESTIONS_PER_ROUND}. A field whose last answer was rejected is asked
 * again with the reason (`rejected`: field → reason).
 * @param {ReportData} data
 * @param {Record<string, string>} [rejected]
 * @returns {{ question: string, field: string, importance: Importance, options?: string[], rejected_reason?: string }[]}
 */
export function verificationQuestions(data, rejected = {}) {
  const required = requiredFields(data);
  const wanted = required.filter((f) => {
    const value = data[f.field];
    return value === undefined || value.confidence < RECONFIRM_BELOW;
  });
  return wanted
    .map((f, order) => ({ f, order }))
    .sort((a, b) => RANK[a.f.importance] - RANK[b.f.importance] || a.order - b.order)
    .slice(0, QUESTIONS_PER_ROUND)
    .map(({ f }) => {
      const current = data[f.field];
      const reason = current === undefined ? rejected[f.field] : undefined;
      const question =
        current !== undefined
          ? `${f.question} (Ik heb "${String(current.value)}" genoteerd; klopt dat?)`
          : reason
            ? `${f.question} (${capitalise(reason)}${f.options ? `; antwoord met ${f.options.join(" of ")}` : ""}.)`
            : f.question;
      return {
        question,
        field: f.field,
        importance: f.importance,
        ...(f.options ? { options: [...f.options] } : {}),
        ...(reason ? { rejected_reason: reason } : {}),
      };
    });
}

/**
 * The spec of a field by name.
 * @param {string} field
 * @returns {FieldSpec | undefined}
 */
export function fieldSpec(field) {
  return FIELDS.find((f) => f.field === field);
}

/** @param {string} text */
function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
