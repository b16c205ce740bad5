/**
 * Spanish text normalisation for search and matching: accent folding, tokenising, stop words and a
 * light stemmer (plural and gender endings). Deliberately small: the corpus is a few dozen passages.
 */

const STOPWORDS = new Set(
  (
    "a al algo algun alguna algunas alguno algunos ante antes aqui asi aun bajo bien cada como con contra cual cuales " +
    "cuando cuanto de del desde donde dos el ella ellas ello ellos en entre era eran es esa esas ese eso esos esta " +
    "estan estar este esto estos fue fueron ha hace hacen han hasta hay la las le les lo los mas me mi mis mucho muy " +
    "nada ni no nos o os otra otras otro otros para pero poco por porque puede pueden que quien quienes se ser si sin " +
    "sobre solo son su sus tambien tan te tiene tienen todo todos tu tus un una unas uno unos usa usan y ya yo " +
    "explica explicame dime cual cuales que es son significa define definicion hola favor puedes podrias quiero saber " +
    // the verbs and nouns a question is phrased with, which say nothing about its subject
    "sirve sirven servir funciona funcionan funcionar hace hacen hacer hago consiste consisten usar uso utiliza " +
    "utilizan utilizar significa diferencia diferencias diferencian ventaja ventajas inconveniente inconvenientes " +
    "ejemplo ejemplos cosa cosas vez veces mejor debe deben deberia manera forma cuanta cuantas cuantos"
  ).split(" "),
);

/**
 * Lower-cases and removes accents (á→a, ñ stays ñ-free as n), so "Contenedores" and "contenedóres" meet.
 *
 * @example
 * foldAccents("Imágenes de Contenedor"); // "imagenes de contenedor"
 */
export function foldAccents(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "");
}

/**
 * Splits text into folded word tokens (letters and digits).
 *
 * @example
 * tokenize("¿Qué es un Dockerfile?"); // ["que", "es", "un", "dockerfile"]
 */
export function tokenize(text: string): string[] {
  return foldAccents(text).match(/[a-z0-9]+/g) ?? [];
}

/**
 * Whether a folded token is a Spanish stop word (or a filler word of questions such as "explica").
 *
 * @example
 * isStopword("que"); // true
 */
export function isStopword(token: string): boolean {
  return STOPWORDS.has(token);
}

/** Derivational endings, longest first: stripped once when at least four letters remain. */
const DERIVATIONAL = [
  "amientos",
  "imientos",
  "aciones",
  "uciones",
  "amiento",
  "imiento",
  "idades",
  "ciones",
  "acion",
  "ucion",
  "mente",
  "ancias",
  "encias",
  "adores",
  "adoras",
  "ables",
  "ibles",
  "istas",
  "ismos",
  "ancia",
  "encia",
  "ador",
  "adora",
  "antes",
  "entes",
  "cion",
  "idad",
  "able",
  "ible",
  "ista",
  "ismo",
  "ante",
  "ente",
  "ivas",
  "ivos",
  "iva",
  "ivo",
];
/** Inflectional endings (verbs, plural, gender), longest first: stripped up to twice, three letters kept. */
const INFLECTIONAL = [
  "iendo",
  "ieron",
  "ando",
  "aron",
  "aban",
  "ados",
  "adas",
  "idos",
  "idas",
  "amos",
  "emos",
  "imos",
  "ado",
  "ada",
  "ido",
  "ida",
  "an",
  "en",
  "ar",
  "er",
  "ir",
  "es",
  "os",
  "as",
  "s",
  "a",
  "e",
  "o",
];

/**
 * A small Spanish stemmer in the spirit of Snowball's: one derivational ending (`-ción`, `-mente`,
 * `-encia`, `-ente`, …) then up to two inflectional ones (verb endings, plural, gender), so
 * "contenedores"/"contenedor", "imágenes"/"imagen", "persistente"/"persisten"/"persistencia" and
 * "idempotente"/"idempotencia" share a stem. Digits and short words stay as they are.
 *
 * @example
 * stem("contenedores") === stem("contenedor"); // true
 * stem("idempotente") === stem("idempotencia"); // true
 */
export function stem(token: string): string {
  if (token.length <= 3 || /\d/.test(token)) return token;
  let t = token;
  const derivational = DERIVATIONAL.find((e) => t.endsWith(e) && t.length - e.length >= 4);
  if (derivational) t = t.slice(0, -derivational.length);
  for (let round = 0; round < 2; round++) {
    const ending = INFLECTIONAL.find((e) => t.endsWith(e) && t.length - e.length >= 3);
    if (!ending) break;
    t = t.slice(0, -ending.length);
  }
  return t;
}

/**
 * The search terms of a text: folded tokens without stop words, stemmed.
 *
 * @example
 * searchTerms("¿Qué son los contenedores?"); // ["contenedor"]
 */
export function searchTerms(text: string): string[] {
  return tokenize(text)
    .filter((t) => !isStopword(t))
    .map(stem);
}

/**
 * Splits a passage into sentences (on `.`, `?`, `!` followed by a space or the end).
 *
 * @example
 * sentences("Uno. Dos? Tres"); // ["Uno.", "Dos?", "Tres"]
 */
export function sentences(text: string): string[] {
  return (text.match(/[^.!?]+(?:[.!?]+|$)/g) ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
}
