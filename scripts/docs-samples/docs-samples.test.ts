/**
 * Every TypeScript sample in README.md and docs/*.md, checked the way a reader uses it (the markers are
 * described in extract.ts): all samples type-check in one `tsc` program against the packages'
 * sources, the samples marked `run` run with tsx and print what the page shows under them, and the CLI
 * output the pages show is what the repository serves.
 */
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodeSample, extractSamples, markedBlocks } from "./extract.js";

const exec = promisify(execFile);
const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
/** The pages whose samples are tests. */
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
/** Inside the repository (gitignored), so that `@trellis/*` and `zod` resolve from its node_modules. */
const OUT = join(ROOT, "test-artifacts", `docs-samples-${process.pid}`);

interface Written {
  sample: CodeSample;
  path: string;
  /** Lines put before the sample's first line in the written file. */
  offset: number;
}

let written: Written[] = [];

function fileName(sample: CodeSample, index: number): string {
  const page = sample.file.replace(/\.md$/, "").replace(/[^a-z0-9]+/gi, "-");
  return `${String(index).padStart(3, "0")}-${page}-L${sample.line}.ts`;
}

beforeAll(async () => {
  await mkdir(OUT, { recursive: true });
  const samples: CodeSample[] = [];
  for (const page of PAGES) samples.push(...extractSamples(await readFile(join(ROOT, page), "utf8"), page));
  written = await Promise.all(
    samples.map(async (sample, i) => {
      const path = join(OUT, fileName(sample, i));
      const head = sample.prelude ? `${sample.prelude}\n` : "";
      // `export {}` keeps each sample a module of its own: their top-level names never collide
      await writeFile(path, `${head}${sample.code}\nexport {};\n`);
      return { sample, path, offset: head === "" ? 0 : head.split("\n").length - 1 };
    }),
  );
  const tsconfig = {
    extends: relative(OUT, join(ROOT, "tsconfig.base.json")),
    compilerOptions: {
      noEmit: true,
      composite: false,
      incremental: false,
      declaration: false,
      declarationMap: false,
      sourceMap: false,
      rootDir: ROOT,
    },
    include: ["*.ts"],
  };
  await writeFile(join(OUT, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
}, 60_000);

afterAll(async () => {
  // TRELLIS_DOCS_SAMPLES_KEEP=1 keeps the written files, to run `tsc -p` on them by hand
  if (process.env.TRELLIS_DOCS_SAMPLES_KEEP) process.stderr.write(`docs samples kept in ${OUT}\n`);
  else await rm(OUT, { recursive: true, force: true });
});

/** tsc's messages for the samples, each pointed at its page and line. */
async function typeErrors(): Promise<string[]> {
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  const { stdout } = await exec(process.execPath, [tsc, "-p", OUT, "--pretty", "false"], {
    cwd: OUT,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  return stdout
    .split("\n")
    .filter((line) => /error TS\d+/.test(line))
    .map((line) => {
      const match = /^(.*?\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
      const at = match && written.find((w) => resolve(OUT, match[1] as string) === w.path);
      if (!match || !at) return line;
      const pageLine = at.sample.line + Number(match[2]) - 1 - at.offset;
      const where =
        pageLine < at.sample.line
          ? `${at.sample.file}:${at.sample.line} (its prelude)`
          : `${at.sample.file}:${pageLine}`;
      return `${where}: ${match[4]}`;
    });
}

/** What a run sample prints, run as the page says (tsx), on the workspace's package sources. */
async function runSample(path: string): Promise<string> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.TRELLIS_MODEL_PROVIDER;
  const { stdout } = await exec(process.execPath, ["--conditions=@trellis/source", "--import", "tsx", path], {
    cwd: ROOT,
    env: { ...env, NO_COLOR: "1", FORCE_COLOR: "0" },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

function normalize(text: string): string {
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .trim();
}

describe("the docs' TypeScript samples", () => {
  it("type-check, all in one program (fragments with the code their marker gives)", async () => {
    expect(written.length).toBeGreaterThan(0);
    expect(await typeErrors()).toEqual([]);
  }, 600_000);

  it("run, printing what the page shows (samples marked run)", async () => {
    const runs = written.filter((w) => w.sample.kind === "run");
    expect(runs.length).toBeGreaterThan(0);
    for (const { sample, path } of runs) {
      const printed = await runSample(path);
      if (sample.expectedOutput !== undefined) {
        expect(normalize(printed), `${sample.file}:${sample.line}`).toBe(normalize(sample.expectedOutput));
      }
    }
  }, 600_000);
});

describe("the CLI output the docs show", () => {
  it("docs/cli.md's `trellis serve` lists every graph the repository's trellis.json serves, in its order", async () => {
    const [block] = markedBlocks(await readFile(join(ROOT, "docs/cli.md"), "utf8"), "serve-output");
    const listed = /\(graphs: ([^)]*)\)/.exec(block ?? "")?.[1]?.split(", ");
    const config = JSON.parse(await readFile(join(ROOT, "trellis.json"), "utf8")) as { graphs: object };
    expect(listed).toEqual(Object.keys(config.graphs));
  });
});
