/**
 * `npm start` on a checkout needs no `tsc -b` (issue 37, a fast first start): it builds the studio with
 * Vite (once, stamped with the hash of its sources) and serves the graphs from their TypeScript
 * sources. A module hook refuses every file of a workspace's `dist/`, so the test fails if the run path
 * reads a build output; the server must then answer the studio and a run of a graph that imports
 * other workspaces. The studio's cache itself is checked without a build below.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { REPO_DIR } from "./cli-harness.js";

/** `scripts/start/studio-build.ts`, loaded by path: it sits outside this package's sources. */
interface StudioBuild {
  STAMP_FILE: string;
  studioSourceHash(repoDir: string): string;
  studioIsCurrent(outDir: string, hash: string): boolean;
}
const { STAMP_FILE, studioIsCurrent, studioSourceHash } = (await import(
  pathToFileURL(join(REPO_DIR, "scripts/start/studio-build.ts")).href
)) as StudioBuild;

const dir = mkdtempSync(join(tmpdir(), "trellis-npm-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A Node hook, loaded before anything else, that refuses modules under a workspace's dist/. */
function noDistHook(): string {
  const root = pathToFileURL(REPO_DIR).href;
  const hooks = join(dir, "no-dist-hooks.mjs");
  writeFileSync(
    hooks,
    `const DIST = new RegExp(${JSON.stringify(`^${root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/(packages|apps|examples)/[^/]+/dist/`)});
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (DIST.test(resolved.url)) throw new Error("npm start read a build output: " + resolved.url);
  return resolved;
}
`,
  );
  const register = join(dir, "no-dist.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return register;
}

it("npm start builds the studio and serves graphs from their sources, reading no dist/", {
  timeout: 180_000,
}, async () => {
  const studioDir = join(dir, "studio");
  writeFileSync(
    join(dir, "trellis.json"),
    JSON.stringify({
      graphs: {
        "approval-flow": { module: join(REPO_DIR, "examples/src/approval-flow.ts"), graph: "buildGraph" },
        "twi-author": { module: join(REPO_DIR, "apps/twi-author/src/index.ts"), graph: "twiAuthorGraph" },
      },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
    }),
  );
  const child = spawn("npm", ["start", "--", "-c", join(dir, "trellis.json"), "--port", "0", "--host", "127.0.0.1"], {
    cwd: REPO_DIR,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NODE_OPTIONS: `--import=${pathToFileURL(noDistHook()).href}`,
      TRELLIS_STUDIO_DIR: studioDir,
    },
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = /^Trellis server: (http:\/\/\S+)/m.exec(out);
        if (m) resolve(m[1] as string);
      };
      child.stdout.on("data", check);
      void exited.then(() => reject(new Error(`npm start ended before serving:\n${out}`)));
    });
    // each long step said what it does
    expect(out).toContain("[start] studio: building with Vite");
    expect(out).toMatch(/\[start\] studio: built in [\d.]+ s/);
    expect(readFileSync(join(studioDir, STAMP_FILE), "utf8").trim()).toBe(studioSourceHash(REPO_DIR));

    const studio = await fetch(`${url}/studio/`);
    expect(studio.status).toBe(200);
    expect(await studio.text()).toContain("<script");
    const run = await fetch(`${url}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "approval-flow", input: { request: "lockout procedure" } }),
    });
    expect(run.status).toBe(200);
    expect(((await run.json()) as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
    const twi = await fetch(`${url}/assistants/twi-author/graph`);
    expect(twi.status).toBe(200);
    expect(out).not.toContain("read a build output");
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
    await exited;
  }
});

it("the studio is rebuilt only when a file it is built from changed", () => {
  const repo = join(dir, "repo");
  const out = join(dir, "out");
  mkdirSync(join(repo, "packages/studio/src"), { recursive: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(repo, "packages/studio/src/app.tsx"), "export const a = 1;\n");
  writeFileSync(join(repo, "packages/studio/src/app.test.ts"), "// a test\n");
  const hash = studioSourceHash(repo);
  expect(studioIsCurrent(out, hash)).toBe(false); // nothing built yet
  writeFileSync(join(out, "index.html"), "<html></html>");
  writeFileSync(join(out, STAMP_FILE), `${hash}\n`);
  expect(studioIsCurrent(out, hash)).toBe(true);
  writeFileSync(join(repo, "packages/studio/src/app.test.ts"), "// another test\n");
  expect(studioSourceHash(repo)).toBe(hash); // tests are not part of the bundle
  writeFileSync(join(repo, "packages/studio/src/app.tsx"), "export const a = 2;\n");
  expect(studioIsCurrent(out, studioSourceHash(repo))).toBe(false);
});
