// Keyword search over short Dutch texts: lower case, no diacritics, no stop words, a light stemmer
// (plural and inflection endings), and matches on titles and keywords weighing more than on the text.

const STOP = new Set(
  (
    "de het een en of in op aan van voor met bij uit over tot naar als dat die dit deze wat wie welke hoe " +
    "is zijn was waren wordt worden word mag mogen moet moeten kan kunnen zal zullen ik je jij u we wij ze zij " +
    "er hier daar ook nog niet geen wel te om dan maar zo al the regels regel wet wetgeving eisen eis " +
    "gelden geldt zit zitten mijn onze jullie hun hem haar graag vertel weten"
  ).split(" "),
);

/**
 * A word without diacritics, in lower case.
 * @param {string} text
 */
export function fold(text) {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
}

/**
 * A crude Dutch stem: strips common plural and inflection endings so "koelen", "koeling" and "koel"
 * meet, and "allergenen" meets "allergenen", "allergie" meets "allergieen".
 * @param {string} word
 */
export function stem(word) {
  let w = word;
  for (const suffix of ["ingen", "ing", "heden", "heid", "eren", "en", "es", "s", "e"]) {
    if (w.length - suffix.length >= 4 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  // "koell" → "koel" after "koellen"-like doubling; collapse a doubled final consonant
  if (/([^aeiou])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}

/**
 * The search terms of a text.
 * @param {string} text
 * @returns {string[]}
 */
export function terms(text) {
  return fold(text)
    .split(/[^a-z0-9-]+/)
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map(stem);
}

/**
 * Ranks documents for a query: 3 points per query term found among a document's keywords, 2 in its
 * title, 1 in its text. Documents scoring less than half the best score are left out.
 * @template {{ title: string, text: string, keywords: string[] }} D
 * @param {readonly D[]} documents
 * @param {string} query
 * @param {number} limit
 * @returns {{ doc: D, score: number }[]}
 */
export function rank(documents, query, limit) {
  const wanted = [...new Set(terms(query))];
  if (wanted.length === 0) return [];
  const scored = documents.map((doc) => {
    const keywords = new Set(doc.keywords.flatMap(terms));
    const title = new Set(terms(doc.title));
    const text = new Set(terms(doc.text));
    let score = 0;
    for (const t of wanted) score += (keywords.has(t) ? 3 : 0) + (title.has(t) ? 2 : 0) + (text.has(t) ? 1 : 0);
    return { doc, score };
  });
  const ranked = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score);
  // Keep the documents that score at least half as well as the best one: the rest matched by chance.
  const best = ranked[0]?.score ?? 0;
  return ranked.filter((s) => s.score * 2 >= best).slice(0, limit);
}
