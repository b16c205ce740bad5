/**
 * `npm start` on a checkout: the studio built once (Vite, a few seconds; skipped while its sources are
 * unchanged), then `trellis serve` run from the TypeScript sources through tsx (esbuild), so no
 * `tsc -b` stands between `npm install` and the studio's URL. Types are checked by `npm run build`,
 * `npm run typecheck` and `npm test`, not here. Arguments after `--` go to `trellis serve`
 * (`npm start -- --port 8124`). Each step says what it does and how long it took; while the graphs load,
 * a line every 10 s says the server is still starting.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildStudio, studioIsCurrent, studioSourceHash } from "./studio-build.js";

const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const started = Date.now();
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
const say = (line: string) => process.stdout.write(`[start] ${line}\n`);

const args = process.argv.slice(2);
const noStudio = args.includes("--no-studio");
const studioDir = process.env.TRELLIS_STUDIO_DIR
  ? resolve(process.env.TRELLIS_STUDIO_DIR)
  : join(REPO_DIR, "packages/studio/dist");

if (!noStudio) {
  const hash = studioSourceHash(REPO_DIR);
  if (studioIsCurrent(studioDir, hash)) say(`studio: up to date in ${studioDir}`);
  else {
    const t = Date.now();
    say("studio: building with Vite (once; again only when its sources change)…");
    await buildStudio(REPO_DIR, studioDir, hash);
    say(`studio: built in ${seconds(t)}`);
  }
}

say("server: loading the graphs of trellis.json from their TypeScript sources (tsx, no typecheck)…");
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const child = spawn(
  process.execPath,
  ["--conditions=@trellis/source", "--import", tsx, join(REPO_DIR, "packages/cli/src/bin.ts"), "serve", ...args],
  {
    cwd: process.cwd(),
    stdio: ["inherit", "pipe", "inherit"],
    env: { ...process.env, ...(noStudio ? {} : { TRELLIS_STUDIO_DIR: studioDir }) },
  },
);
let ready = false;
const waiting = setInterval(() => say(`server: still starting (${seconds(started)})…`), 10_000);
child.stdout.on("data", (d: Buffer) => {
  process.stdout.write(d);
  if (!ready && /^Trellis server: http/m.test(d.toString())) {
    ready = true;
    clearInterval(waiting);
    say(`ready ${seconds(started)} after npm start`);
  }
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  clearInterval(waiting);
  process.exitCode = code ?? (signal ? 1 : 0);
});
