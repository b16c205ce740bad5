import type { CompanyDirectory } from "./company-graph.js";

/** A company or sector named in a text, and where. */
export interface EntityMention {
  kind: "company" | "sector";
  id: string;
  name: string;
  /** Offset of the first mention. */
  index: number;
}

/** What {@link findEntities} found: companies and sectors in order of first mention, each once. */
export interface EntityMentions {
  companies: EntityMention[];
  sectors: EntityMention[];
  /** The text with every matched name blanked out, for finding intent words that are not names. */
  rest: string;
}

interface Candidate {
  kind: "company" | "sector";
  id: string;
  name: string;
  alias: string;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Finds the companies and sectors a text names, by their names and aliases, longest first: in
 * "Keells Food Products and John Keells" the first match is Keells Food Products, not John Keells
 * Holdings. Company names are matched before sector words, so the "Bank" of "Commercial Bank" does
 * not also mean the Banks sector. Case-insensitive, on word boundaries.
 *
 * @example
 * const { companies, sectors } = findEntities("Compare Commercial Bank with tech companies", directory);
 * companies.map((c) => c.id); // ["COMB"]
 * sectors.map((s) => s.id); // ["technology"]
 */
export function findEntities(text: string, directory: CompanyDirectory): EntityMentions {
  let rest = text;
  const found = (kind: "company" | "sector"): EntityMention[] => {
    const mentions = new Map<string, EntityMention>();
    for (const candidate of candidates(directory).filter((c) => c.kind === kind)) {
      let from = 0;
      for (;;) {
        const index = indexOfWord(rest, candidate.alias, from);
        if (index < 0) break;
        const seen = mentions.get(candidate.id);
        if (!seen || index < seen.index)
          mentions.set(candidate.id, { kind, id: candidate.id, name: candidate.name, index });
        rest = rest.slice(0, index) + " ".repeat(candidate.alias.length) + rest.slice(index + candidate.alias.length);
        from = index + candidate.alias.length;
      }
    }
    return [...mentions.values()].sort((a, b) => a.index - b.index);
  };
  const companies = found("company");
  const sectors = found("sector");
  return { companies, sectors, rest };
}

const cache = new WeakMap<CompanyDirectory, Candidate[]>();

function candidates(directory: CompanyDirectory): Candidate[] {
  let list = cache.get(directory);
  if (list) return list;
  list = [];
  for (const c of directory.companies) {
    for (const alias of new Set([c.name, stripSuffix(c.name), ...c.aliases])) {
      if (alias.length >= 2) list.push({ kind: "company", id: c.id, name: c.name, alias });
    }
  }
  for (const s of directory.sectors) {
    for (const alias of new Set([s.name, ...s.aliases])) list.push({ kind: "sector", id: s.id, name: s.name, alias });
  }
  list.sort((a, b) => b.alias.length - a.alias.length || a.alias.localeCompare(b.alias));
  cache.set(directory, list);
  return list;
}

/** "John Keells Holdings PLC" → "John Keells Holdings"; "Mobitel (Pvt) Ltd" → "Mobitel". */
function stripSuffix(name: string): string {
  return name.replace(/\s+(PLC|Ltd|Limited|\(Pvt\) Ltd|Inc)\.?$/i, "").trim();
}

function indexOfWord(text: string, word: string, from: number): number {
  const haystack = text.toLowerCase();
  const needle = word.toLowerCase();
  let at = haystack.indexOf(needle, from);
  while (at >= 0) {
    const before = at === 0 ? "" : (haystack[at - 1] ?? "");
    const after = haystack[at + needle.length] ?? "";
    if (!LETTER_OR_DIGIT.test(before) && !LETTER_OR_DIGIT.test(after)) return at;
    at = haystack.indexOf(needle, at + 1);
  }
  return -1;
}
