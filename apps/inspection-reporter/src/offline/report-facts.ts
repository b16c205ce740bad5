/**
 * What an inspector's message says about the report, read as it was said: the company's name without
 * the words around it, the street address with its city, the KVK number however it is grouped, whether
 * hygiene was in order, and whether violations were found — with their description (a temperature
 * stays as the inspector put it: "de koelkast was 9 graden"). Only what is stated.
 */

/** Street-name endings that make a word a street ("Molenweg", "Kerkstraat"). */
const STREET_ENDS =
  "straat weg laan plein kade gracht dijk singel markt pad hof steeg dreef plantsoen wal ring baan".split(" ");
const STREET_END = `(?:${[...STREET_ENDS, ...STREET_ENDS.map((e) => e.charAt(0).toUpperCase() + e.slice(1))].join("|")})`;
const CAP = "[A-Z\\u00C0-\\u00DE]";
/** A capitalised word of a name (not "KVK", not a street with its number). */
const NAME_WORD = `(?!(?:KVK|KvK|Kvk)\\b)(?![\\p{L}'’.-]*${STREET_END}\\s+\\d)${CAP}[\\p{L}0-9'’&.-]*`;
/** Small words inside names: "De Gouden Korenaar", "Snackbar 't Hoekje", "Slagerij van der Berg". */
const PARTICLE = "(?:de|het|van|der|den|'t|’t|en|&|la|le|du|da|del|di)";
const NAME = `${NAME_WORD}(?:\\s+(?:${PARTICLE}\\s+)*${NAME_WORD})*`;
/** "voor Restaurant Bella Rosa", "bij Bakkerij De Gouden Korenaar", "van het bedrijf Visgilde". */
const NAME_AFTER = new RegExp(
  `\\b(?:voor|van|bij|over|aan)\\s+(?:(?:het\\s+)?bedrijf\\s+|de\\s+zaak\\s+|firma\\s+)?(${NAME})`,
  "gu",
);
/** A name written right before its KVK number: "Restaurant Bella Rosa (KVK 9225 1854)". */
const NAME_BEFORE_KVK = new RegExp(`(?<!\\b(?:in|te)\\s)(${NAME})\\s*[(,]?\\s*(?:KVK|kvk|Kvk|KvK)\\b`, "u");
/** Words that start a sentence before a name ("Vandaag Restaurant Bella Rosa (KVK …)"). */
const LEADING_WORDS =
  /^(?:(?:Vandaag|Gisteren|Vanochtend|Vanmiddag|Vanavond|Zojuist|Net|Inspectie|Rapport|Bezoek|Bezocht|Bij|Voor|Bedrijf)\s+)+/;
/** A business named in lower case: a kind of business and its name, up to the next small word. */
const NAME_BY_KIND =
  /\b(?:bij|voor|van|aan)\s+([\p{L}]*(?:bakkerij|slagerij|restaurant|caf[eé]|cafetaria|snackbar|hotel|lunchroom|viswinkel|supermarkt|eetcaf[eé]|eethuis|pizzeria|kantine|bistro|brasserie|ijssalon|traiteur|cateraar|catering|toko|shoarmazaak|grillroom|frituur|kaaswinkel|groentewinkel|poelier|broodjeszaak|bar|foodtruck|viskraam|sushibar|wokrestaurant|bakker|slager|zorginstelling|kinderdagverblijf)(?:\s+(?!(?:aan|in|op|te|met|kvk|en|was|is|heeft)\b)[\p{L}'’&-]+){1,4})/iu;
const STREET = new RegExp(
  `((?:${CAP}[\\p{L}'.-]*\\s+){0,2}[\\p{L}'.-]*${STREET_END}\\s+\\d+(?:\\s?-?\\s?[a-zA-Z](?![\\p{L}]))?)`,
  "u",
);
/** "aan de Oude Gracht 12", "op het Spui 3", "adres: Koningin Julianaplein 10". */
const STREET_AFTER = new RegExp(
  `\\b(?:aan|op|adres(?:\\s+is)?:?|gevestigd\\s+(?:aan|op))\\s+(?:de\\s+|het\\s+|'t\\s+)?((?:${CAP}[\\p{L}'.-]*\\s+){0,3}\\d+(?:\\s?[a-zA-Z](?![\\p{L}]))?)`,
  "u",
);
/** The city right after the street: "Molenweg 14 in Zwolle", "Kerkstraat 5, 3511 AB Utrecht". */
const CITY_AFTER = new RegExp(
  `^\\s*(?:,\\s*)?(\\d{4}\\s?[A-Z]{2}\\s+)?(?:(?:in|te)\\s+)?(${CAP}[\\p{L}'-]+(?:(?:\\s|-)(?:aan\\s+(?:de|den)\\s+|op\\s+|de\\s+)?${CAP}[\\p{L}'-]+)?)`,
  "u",
);
/** A city named elsewhere: "in Zwolle", "te Den Haag". */
const CITY_ANYWHERE = new RegExp(`\\b(?:in|te)\\s+(${CAP}[\\p{L}'-]+(?:\\s${CAP}[\\p{L}'-]+)?)`, "u");
const NOT_CITIES =
  /^(?:De|Het|Een|Orde|Januari|Februari|Maart|April|Mei|Juni|Juli|Augustus|September|Oktober|November|December)\b/;
const KVK_LABELLED =
  /\b(?:kvk|kvk-nummer|kvknummer|kamer van koophandel)(?:[\s-]*(?:nummer|nr\.?))?\s*(?:is|:|=)?\s*(\d[\d\s.]{6,12}\d)/i;
const HYGIENE_BAD =
  /\bhygi[eë]ne\b(?:[^.;:!?]{0,25}?\b(?:niet\s+in\s+orde|niet\s+goed|onvoldoende|slecht|matig|ondermaats)\b|\s*(?::|=|was|is)?\s*nee\b)/i;
const HYGIENE_OK =
  /\bhygi[eë]ne\b(?:[^.;:!?]{0,25}?\b(?:in\s+orde|goed|prima|uitstekend|voldoende|netjes|op\s+orde)\b|\s*(?::|=|was|is)?\s*(?:ja|ok|oké)\b)/i;
const NO_VIOLATIONS =
  /\b(?:geen|zonder)\s+(?:enkele\s+|\w+\s+)?overtreding(?:en)?\b|\bovertreding(?:en)?\s*(?::|=)?\s*(?:nee|geen)\b/i;
const VIOLATION = /\bovertreding(?:en)?\b/i;
/** What follows "overtreding" before its description: "geconstateerd:", "was", "namelijk". */
const DETAILS_AFTER =
  /\bovertreding(?:en)?\b(?:\s+(?:geconstateerd|gevonden|vastgesteld|aangetroffen|gezien))?\s*(?:(?::|=)?\s*ja\b[,:]?|[:–—-]|\b(?:was|is|waren|zijn|betrof|betreft|namelijk)\b:?)\s*([\s\S]+)$/i;
/** "…, dat is een overtreding" after the description. */
const DETAILS_BEFORE =
  /[,;]?\s*(?:en\s+)?(?:dat|dit|wat)\s+(?:is|was|waren|zijn|telt als)\s*(?:een|één|1)?\s*overtreding(?:en)?\b.*$/i;

/**
 * The facts of a message, as stated.
 *
 * @example
 * reportFacts("Maak een rapport van mijn inspectie bij Bakkerij De Gouden Korenaar aan de Molenweg 14 in Zwolle");
 * // { company_name: "Bakkerij De Gouden Korenaar", address: "Molenweg 14, Zwolle" }
 * reportFacts("hygiëne was in orde, maar er was één overtreding: de koelkast was 9 graden");
 * // { hygiene_ok: true, violations_found: true, violation_details: "de koelkast was 9 graden" }
 */
export function reportFacts(text: string): Record<string, string | boolean> {
  const facts: Record<string, string | boolean> = {};
  const company = companyName(text);
  if (company) facts.company_name = company;
  const kvk = kvkNumber(text);
  if (kvk) facts.kvk_number = kvk;
  const address = streetAddress(text);
  if (address) facts.address = address;
  if (HYGIENE_BAD.test(text)) facts.hygiene_ok = false;
  else if (HYGIENE_OK.test(text)) facts.hygiene_ok = true;
  const violations = violationsOf(text);
  if (violations) {
    facts.violations_found = violations.found;
    if (violations.details) facts.violation_details = violations.details;
  }
  return facts;
}

/**
 * The company a message names, without the words around it.
 *
 * @example
 * companyName("Inspectie bij Snackbar 't Hoekje, KVK 12345678"); // "Snackbar 't Hoekje"
 */
export function companyName(text: string): string | undefined {
  for (const m of text.matchAll(NAME_AFTER)) {
    const name = trimName(m[1] ?? "");
    if (name.length >= 3) return name;
  }
  const byKind = NAME_BY_KIND.exec(text)?.[1];
  if (byKind) return trimName(byKind);
  const beforeKvk = NAME_BEFORE_KVK.exec(text)?.[1]?.replace(LEADING_WORDS, "");
  return beforeKvk && beforeKvk.length >= 3 ? trimName(beforeKvk) : undefined;
}

/**
 * The KVK number a message gives (8 digits, however grouped), or undefined.
 *
 * @example
 * kvkNumber("KvK-nummer: 1234 5678"); // "12345678"
 */
export function kvkNumber(text: string): string | undefined {
  const labelled = KVK_LABELLED.exec(text)?.[1]?.replace(/[\s.]/g, "");
  if (labelled && /^\d{8}$/.test(labelled)) return labelled;
  return /\b(\d{8})\b/.exec(text.replace(/\b(\d{4})[\s.](\d{4})\b/g, "$1$2"))?.[1];
}

/**
 * The street address a message gives, with its city when one is named.
 *
 * @example
 * streetAddress("aan de Molenweg 14 in Zwolle"); // "Molenweg 14, Zwolle" (as written; the server capitalises)
 */
export function streetAddress(text: string): string | undefined {
  const m = STREET.exec(text) ?? STREET_AFTER.exec(text);
  const street = m?.[1]?.trim();
  if (!m || !street) return undefined;
  const after = text.slice((m.index ?? 0) + m[0].length);
  const near = CITY_AFTER.exec(after);
  const postcode = near?.[1]?.trim();
  let city = near?.[2] && !NOT_CITIES.test(near[2]) ? near[2] : undefined;
  if (!city) {
    const anywhere = CITY_ANYWHERE.exec(text)?.[1];
    if (anywhere && !NOT_CITIES.test(anywhere) && !street.includes(anywhere)) city = anywhere;
  }
  return city ? `${street}, ${postcode ? `${postcode} ` : ""}${city}` : street;
}

/**
 * Whether a message says violations were found, and what they were when it says.
 *
 * @example
 * violationsOf("er was één overtreding: de koelkast was 9 graden"); // { found: true, details: "de koelkast was 9 graden" }
 * violationsOf("geen overtredingen"); // { found: false }
 */
export function violationsOf(text: string): { found: boolean; details?: string } | undefined {
  if (NO_VIOLATIONS.test(text)) return { found: false };
  if (!VIOLATION.test(text)) return undefined;
  const after = DETAILS_AFTER.exec(text)?.[1];
  const details = after ? firstSentence(after) : beforeViolation(text);
  return details && details.length >= 4 ? { found: true, details } : { found: true };
}

/** The sentence that says "…, dat is een overtreding", without that phrase. */
function beforeViolation(text: string): string | undefined {
  const sentence = sentencesOf(text).find((s) => VIOLATION.test(s));
  if (!sentence || !DETAILS_BEFORE.test(sentence)) return undefined;
  const before = sentence.replace(DETAILS_BEFORE, "").trim();
  if (before.split(/\s+/).length < 3) return undefined;
  return before.replace(/^(?:en|maar|ook)\s+/i, "");
}

function firstSentence(text: string): string {
  return (sentencesOf(text)[0] ?? text).replace(/[\s.!;]+$/, "").trim();
}

/** Sentences: a full stop that is not between two digits ("7.5") and is followed by a space. */
function sentencesOf(text: string): string[] {
  return text
    .split(/(?<!\d)[.!?]+(?:\s+|$)|(?<=\d)[.!?]+(?=\s+[A-Z\u00C0-\u00DE]|\s*$)\s*|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function trimName(name: string): string {
  return name
    .trim()
    .replace(new RegExp(`(?:\\s+${PARTICLE})+$`, "iu"), "")
    .replace(/[.,;:]+$/, "");
}
