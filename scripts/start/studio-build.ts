/**
 * The studio, built once: `npm start` runs Vite only when the studio's sources changed since the
 * build in its output folder. The build writes a stamp (a hash of every file the bundle is made
 * from) beside the bundle; an equal stamp means the bundle is current.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

/** The file beside the bundle that records what it was built from. */
export const STAMP_FILE = ".trellis-build-stamp";

/** What the studio's bundle is made from, relative to the repository: its sources and the protocol's. */
export const STUDIO_INPUTS = [
  "packages/studio/src",
  "packages/studio/index.html",
  "packages/studio/vite.config.ts",
  "packages/studio/package.json",
  "packages/protocol/src",
  "packages/protocol/package.json",
];

function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => !e.name.endsWith(".test.ts") && !e.name.endsWith(".test.tsx"))
    .flatMap((e) => filesUnder(join(path, e.name)))
    .sort();
}

/**
 * The hash of the studio's inputs under `repoDir`: their paths and contents (tests left out).
 *
 * @example
 * studioSourceHash("/work/trellis"); // "5f1c…"
 */
export function studioSourceHash(repoDir: string, inputs: readonly string[] = STUDIO_INPUTS): string {
  const hash = createHash("sha256");
  for (const input of inputs) {
    for (const file of filesUnder(join(repoDir, input))) {
      hash.update(relative(repoDir, file));
      hash.update("\0");
      hash.update(readFileSync(file));
      hash.update("\0");
    }
  }
  return hash.digest("hex");
}

/**
 * True when `outDir` holds a bundle built from sources with this hash.
 *
 * @example
 * if (!studioIsCurrent(outDir, studioSourceHash(repoDir))) await buildStudio(repoDir, outDir);
 */
export function studioIsCurrent(outDir: string, hash: string): boolean {
  const stamp = join(outDir, STAMP_FILE);
  return existsSync(join(outDir, "index.html")) && existsSync(stamp) && readFileSync(stamp, "utf8").trim() === hash;
}

/**
 * Builds the studio with Vite into `outDir` and stamps it with `hash`; rejects with Vite's output
 * when the build fails.
 *
 * @example
 * await buildStudio(repoDir, join(repoDir, "packages/studio/dist"), studioSourceHash(repoDir));
 */
export async function buildStudio(repoDir: string, outDir: string, hash: string): Promise<void> {
  const studioDir = join(repoDir, "packages/studio");
  const local = join(studioDir, "node_modules/vite/bin/vite.js");
  const vite = existsSync(local) ? local : join(repoDir, "node_modules/vite/bin/vite.js");
  await new Promise<void>((done, fail) => {
    const child = spawn(process.execPath, [vite, "build", "--outDir", outDir, "--emptyOutDir", "--logLevel", "warn"], {
      cwd: studioDir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("error", fail);
    child.on("exit", (code) => (code === 0 ? done() : fail(new Error(`The studio's Vite build failed:\n${out}`))));
  });
  writeFileSync(join(outDir, STAMP_FILE), `${hash}\n`);
}
