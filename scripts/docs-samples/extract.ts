/**
 * The code samples of a markdown page, with the markers that say how the suite checks them. A marker
 * is an HTML comment on the line before a fenced block (invisible on the rendered page):
 *
 * - a ```ts block with no marker is a whole module: it is type-checked as written;
 * - `<!-- sample: run -->` before a ```ts block: type-checked, then run (with tsx); its output is
 *   compared with the next block marked `<!-- sample: output -->`, when there is one before the next
 *   ```ts block;
 * - `<!-- sample: fragment` … `-->` before a ```ts block: a fragment; the comment's lines after the
 *   first are the code the test puts before it (imports, `declare const builder: …`), so that it
 *   type-checks without being left undeclared;
 * - `<!-- sample: output -->` before a block: what the run sample above it prints.
 *
 * @example
 * const samples = extractSamples(await readFile("docs/getting-started.md", "utf8"), "docs/getting-started.md");
 * samples.filter((s) => s.kind === "run").map((s) => s.expectedOutput);
 */

/** One ```ts block of a page, and how it is checked. */
export interface CodeSample {
  /** The page, as given to {@link extractSamples}. */
  file: string;
  /** 1-based line of the block's first code line in the page. */
  line: number;
  kind: "module" | "run" | "fragment";
  /** The block's code as shown. */
  code: string;
  /** For a fragment: the code put before it (from the marker comment). */
  prelude: string;
  /** For a run sample followed by an output block: what it must print. */
  expectedOutput?: string;
}

/** Languages whose blocks are TypeScript samples. */
const TS_LANGS = new Set(["ts", "typescript"]);

/** The ```ts samples of a page, in order, with their markers applied. */
export function extractSamples(markdown: string, file: string): CodeSample[] {
  const lines = markdown.split("\n");
  const samples: CodeSample[] = [];
  let marker: { kind: string; body: string[] } | undefined;
  let lastRun: CodeSample | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const open = /^<!--\s*sample:\s*([a-z-]+)(.*)$/.exec(line);
    if (open) {
      const kind = open[1] as string;
      const body: string[] = [];
      if (!(open[2] ?? "").includes("-->")) {
        for (i++; i < lines.length && !(lines[i] as string).includes("-->"); i++) body.push(lines[i] as string);
      }
      marker = { kind, body };
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!fence) {
      if (line.trim() !== "") marker = undefined; // a marker applies to the block right after it
      continue;
    }
    const lang = fence[1] ?? "";
    const start = i + 1;
    const code: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] as string); i++) code.push(lines[i] as string);
    const text = code.join("\n");
    if (marker?.kind === "output") {
      if (!lastRun) throw new Error(`${file}:${start}: an output block with no run sample above it`);
      lastRun.expectedOutput = text;
      lastRun = undefined;
    } else if (TS_LANGS.has(lang)) {
      const kind = marker?.kind ?? "module";
      if (kind !== "module" && kind !== "run" && kind !== "fragment") {
        throw new Error(`${file}:${start}: unknown sample marker "${kind}" (run, fragment, output)`);
      }
      const sample: CodeSample = { file, line: start + 1, kind, code: text, prelude: marker?.body.join("\n") ?? "" };
      samples.push(sample);
      lastRun = kind === "run" ? sample : undefined;
    }
    marker = undefined;
  }
  return samples;
}

/** The blocks of a page marked `<!-- sample: <name> -->`, whatever their language. */
export function markedBlocks(markdown: string, name: string): string[] {
  const found: string[] = [];
  const pattern = new RegExp(`<!--\\s*sample:\\s*${name}\\s*-->\\n\`\`\`\\S*\\n([\\s\\S]*?)\\n\`\`\``, "g");
  for (const match of markdown.matchAll(pattern)) found.push(match[1] as string);
  return found;
}
