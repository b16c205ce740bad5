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
    "explica explicame dime cual cuales que es son significa define definicion hola favor puedes podrias quiero saber"
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

/**
 * A light stemmer: strips a plural `s` and a final vowel from words longer than four letters, so
 * "contenedores", "contenedor", "pruebas" and "prueba" share a stem.
 *
 * @example
 * stem("contenedores"); // "contenedor"
 * stem("pruebas") === stem("prueba"); // true
 */
export function stem(token: string): string {
  let t = token;
  if (t.length > 4 && t.endsWith("s")) t = t.slice(0, -1);
  if (t.length > 4 && /[aeo]$/.test(t)) t = t.slice(0, -1);
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
