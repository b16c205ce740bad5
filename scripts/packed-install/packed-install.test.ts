/**
 * Trellis as a dependency: packs every publishable package the way it is published, installs the
 * tarballs with plain `npm install` into a fresh project in a temp folder outside the workspace (no
 * links, no `@trellis/source` condition), and uses them there as a user would — a strict type-check of
 * the public API, a graph on the SQLite saver, `trellis serve` driven by the official SDK client, a
 * bundle that tree-shakes, and the starter's own tests. It fails when any package would break once
 * installed from its tarball.
 *
 * Run: `npm run test:packed` (part of `npm test`). Registry packages (typescript, vitest, the SDK…)
 * come from npm's cache when it has them (`--prefer-offline`). Each phase's time is printed.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cp, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedTarballs as readTarballs } from "../../packages/create-trellis/bin/create-trellis.js";
import { buildPackages, type PackedPackage, packPackages, REPO_ROOT } from "../pack-packages.js";

const packedTarballs = readTarballs as (from: string) => Map<string, string>;

const exec = promisify(execFile);
const FIXTURE = join(REPO_ROOT, "scripts/packed-install/fixture");
/** The starter's command in the checkout: `node packages/create-trellis/bin/create-trellis.js <folder> --from .packed`. */
const STARTER_BIN = join(REPO_ROOT, "packages/create-trellis/bin/create-trellis.js");
const MINUTE = 60_000;
/** Packages a SQLite project does not install: the drivers it must not pull. */
const DRIVER_PACKAGES = ["@trellis/checkpoint-postgres", "@trellis/checkpoint-redis"];
const rootManifest = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
};
const serverManifest = JSON.parse(await readFile(join(REPO_ROOT, "packages/server/package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
};

const langgraphManifest = JSON.parse(await readFile(join(REPO_ROOT, "packages/langgraph/package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
};

let work: string;
let packed: PackedPackage[];
const timings: Record<string, number> = {};

async function timed<T>(phase: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await fn();
  } finally {
    timings[phase] = Math.round(performance.now() - start);
  }
}

/** The environment for npm and node in the temp projects: none of the workspace's npm_* settings. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) && !/^npm_config_(cache|registry|userconfig)$/i.test(key)) continue;
    if (key === "NODE_OPTIONS" || key.startsWith("VITEST") || key === "TRELLIS_MODEL_PROVIDER") continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

async function sh(cwd: string, command: string, args: string[], extraEnv: Record<string, string> = {}) {
  try {
    return await exec(command, args, { cwd, env: cleanEnv(extraEnv), maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${e.stdout ?? ""}\n${e.stderr ?? e.message}`);
  }
}

function tarball(name: string): string {
  const found = packed.find((p) => p.name === name);
  if (!found) throw new Error(`no tarball for ${name}`);
  return `file:${found.tarball}`;
}

/**
 * The overrides the starter writes with `--from` (every @trellis tarball, so nested `@trellis/*`
 * requirements resolve to them too), read the way it reads them; and better-sqlite3 at the
 * workspace's version, whose native build {@link npmInstall} reuses.
 */
function overrides(): Record<string, string> {
  const tarballs = packedTarballs(join(work, "tarballs"));
  return {
    ...Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`])),
    "better-sqlite3": workspaceSqlite.version,
  };
}

const workspaceSqlite = {
  dir: join(REPO_ROOT, "node_modules/better-sqlite3"),
  version: (
    JSON.parse(await readFile(join(REPO_ROOT, "node_modules/better-sqlite3/package.json"), "utf8")) as {
      version: string;
    }
  ).version,
};

/**
 * `npm install` in a temp project. Install scripts are skipped and better-sqlite3's native build is
 * copied from the workspace (same version, same Node): compiling it from source when its prebuilt
 * binary cannot be downloaded takes minutes. No Trellis package has an install script.
 */
async function npmInstall(cwd: string): Promise<void> {
  await sh(cwd, "npm", [
    "install",
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    "--ignore-scripts",
  ]);
  const installed = join(cwd, "node_modules/better-sqlite3");
  if (!(await exists(installed))) return;
  const { version } = JSON.parse(await readFile(join(installed, "package.json"), "utf8")) as { version: string };
  expect(version, "better-sqlite3 in the temp project is the workspace's version").toBe(workspaceSqlite.version);
  await mkdir(join(installed, "build/Release"), { recursive: true });
  await cp(
    join(workspaceSqlite.dir, "build/Release/better_sqlite3.node"),
    join(installed, "build/Release/better_sqlite3.node"),
  );
}

/** tsc's errors in the project's own files and in @trellis packages (a third-party .d.ts is not ours to judge). */
async function typeErrors(cwd: string, project: string): Promise<string[]> {
  const tsc = join(cwd, "node_modules/typescript/bin/tsc");
  const result = await exec(process.execPath, [tsc, "-p", project, "--pretty", "false"], {
    cwd,
    env: cleanEnv(),
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  return result.stdout
    .split("\n")
    .filter((line) => /error TS\d+/.test(line))
    .filter((line) => !line.startsWith("node_modules/") || line.startsWith("node_modules/@trellis/"));
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Starts a long-running command; resolves with the URL it prints on a line matching `pattern`. */
function startServer(cwd: string, command: string, args: string[], pattern: RegExp) {
  const child = spawn(command, args, { cwd, env: cleanEnv({ PORT: "0" }), detached: true });
  let output = "";
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${command} ${args.join(" ")} exited (${code}):\n${output}`)));
  });
  return { child, url, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM"); // the whole group: `npm start` → trellis dev → its server
  await exited;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "trellis-packed-"));
  await timed("build (tsc -b, studio)", () => buildPackages());
  packed = await timed("pack", () => packPackages({ outDir: join(work, "tarballs") }));
}, 10 * MINUTE);

afterAll(async () => {
  const line = Object.entries(timings)
    .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
    .join(" · ");
  process.stderr.write(`\npacked-install phases: ${line}\n`);
  if (work && !process.env.TRELLIS_PACKED_KEEP) await rm(work, { recursive: true, force: true });
  else if (work) process.stderr.write(`kept ${work}\n`);
});

describe("every publishable package packs cleanly", () => {
  it("has one version, and the metadata, README and LICENSE a registry page shows", () => {
    const versions = new Set(packed.map((p) => p.version));
    expect([...versions]).toHaveLength(1);
    for (const p of packed) {
      const m = p.manifest;
      expect(p.files, p.name).toEqual(expect.arrayContaining(["package.json", "README.md", "LICENSE"]));
      expect({ name: p.name, license: m.license, type: m.type }).toEqual({
        name: p.name,
        license: "MIT",
        type: "module",
      });
      expect(m.engines, p.name).toEqual({ node: ">=20.11" });
      // no repository or homepage until there is a public repository to name: never a made-up address
      expect({ repository: m.repository, homepage: m.homepage }, p.name).toEqual({
        repository: undefined,
        homepage: undefined,
      });
      expect(m.description, p.name).toBeTruthy();
    }
  });

  it("ships no sources, tests, source maps or workspace-only export conditions", () => {
    for (const p of packed) {
      // the starter's template is a project: it ships its sources, test and tsconfig, never node_modules
      const template = (f: string) => p.name === "create-trellis" && f.startsWith("template/");
      const stray = p.files.filter(
        (f) =>
          /(^|\/)node_modules\//.test(f) ||
          (!template(f) && /^src\/|\.test\.|\.test-d\.|(^|\/)test\/|\.map$|\.tsbuildinfo$|^tsconfig|^e2e\//.test(f)),
      );
      expect(stray, p.name).toEqual([]);
      expect(JSON.stringify(p.manifest), p.name).not.toContain("@trellis/source");
      expect(p.manifest.devDependencies, p.name).toBeUndefined();
    }
  });

  it("exports ESM with types, and every file its export map and bin name is in the tarball", () => {
    for (const p of packed) {
      const targets: string[] = [];
      for (const [path, target] of Object.entries(p.manifest.exports ?? {})) {
        if (path === "./package.json") continue;
        const conditions = target as Record<string, string>;
        expect(Object.keys(conditions), `${p.name} ${path}`).toEqual(["types", "default"]);
        expect(conditions.types, `${p.name} ${path}`).toMatch(/\.d\.ts$/);
        targets.push(conditions.types as string, conditions.default as string);
      }
      const bins = typeof p.manifest.bin === "string" ? [p.manifest.bin] : Object.values(p.manifest.bin ?? {});
      targets.push(...bins);
      for (const target of targets) expect(p.files, p.name).toContain(target.replace(/^\.\//, ""));
    }
  });

  it("depends on no workspace-only package and on no database driver it does not need", () => {
    const version = packed[0]?.version;
    const names = new Set(packed.map((p) => p.name));
    for (const p of packed) {
      for (const [dep, range] of Object.entries(p.manifest.dependencies ?? {})) {
        expect(range, `${p.name} → ${dep}`).not.toMatch(/^(file|link|workspace):/);
        if (dep.startsWith("@trellis/")) {
          expect(names.has(dep), `${p.name} depends on the unpublished ${dep}`).toBe(true);
          expect(range, `${p.name} → ${dep}`).toBe(version);
        }
      }
      const drivers = ["pg", "ioredis"].filter((d) => p.manifest.dependencies?.[d]);
      const own =
        p.name === "@trellis/checkpoint-postgres" ? ["pg"] : p.name === "@trellis/checkpoint-redis" ? ["ioredis"] : [];
      expect(drivers, p.name).toEqual(own);
    }
  });
});

describe("installed from the tarballs into a fresh project", () => {
  let app: string;

  beforeAll(async () => {
    app = join(work, "app");
    await cp(FIXTURE, app, { recursive: true });
    const users = packed.filter((p) => p.name.startsWith("@trellis/") && !DRIVER_PACKAGES.includes(p.name));
    const manifest = {
      name: "trellis-user-app",
      private: true,
      type: "module",
      dependencies: {
        ...Object.fromEntries(users.map((p) => [p.name, tarball(p.name)])),
        "@langchain/langgraph-sdk": serverManifest.devDependencies["@langchain/langgraph-sdk"],
        "@langchain/core": langgraphManifest.devDependencies["@langchain/core"],
        zod: "^4.1.0",
      },
      devDependencies: {
        typescript: rootManifest.devDependencies.typescript,
        "@types/node": rootManifest.devDependencies["@types/node"],
      },
      overrides: overrides(),
    };
    await writeFile(join(app, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    await timed("npm install (app)", () => npmInstall(app));
  }, 10 * MINUTE);

  it("installs real copies, without pg, ioredis, the driver packages or the MCP SDK", async () => {
    for (const name of ["@trellis/core", "@trellis/server", "@trellis/cli"]) {
      expect((await lstat(join(app, "node_modules", name))).isSymbolicLink(), name).toBe(false);
    }
    for (const name of ["pg", "ioredis", ...DRIVER_PACKAGES]) {
      expect(await exists(join(app, "node_modules", name)), `${name} was installed`).toBe(false);
    }
    // MCP is for projects that make an MCP client themselves: @trellis/agents only declares its shape
    expect(await exists(join(app, "node_modules/@modelcontextprotocol/sdk")), "the MCP SDK was installed").toBe(false);
  });

  it(
    "type-checks the public API under strict, with skipLibCheck off",
    async () => {
      expect(await timed("tsc (app)", () => typeErrors(app, "tsconfig.json"))).toEqual([]);
    },
    5 * MINUTE,
  );

  it("runs a graph on the SQLite saver, resuming from a second saver on the same file", async () => {
    const { stdout } = await sh(app, process.execPath, ["dist/sqlite-run.js", join(app, "run.sqlite")]);
    expect(JSON.parse(stdout)).toMatchObject({ question: { question: "Approve order 7?" }, status: "approved" });
  });

  it(
    "serves its own trellis.json with `trellis serve`, driven once by the official SDK client",
    async () => {
      const server = startServer(app, join(app, "node_modules/.bin/trellis"), ["serve"], /Trellis server: (\S+)/);
      try {
        const url = await timed("trellis serve start", () => server.url);
        const { stdout } = await sh(app, process.execPath, ["sdk-drive.mjs", url]);
        expect(JSON.parse(stdout)).toEqual({
          assistants: ["approval"],
          interrupt: { question: "Approve the release?" },
          next: ["approve"],
          status: "approved",
        });
        const studio = await fetch(`${url}/studio/`);
        expect(studio.status, "the studio is served from @trellis/studio's tarball").toBe(200);
      } finally {
        await stop(server.child);
      }
    },
    2 * MINUTE,
  );

  it("runs a LangGraph.js program on @trellis/langgraph (type-checked with the rest under strict)", async () => {
    const { stdout } = await sh(app, process.execPath, ["dist/lg-run.js"]);
    expect(JSON.parse(stdout)).toEqual({
      pausedAt: ["tools"],
      paused: true,
      answer: "The forecast: sunny in Lima",
      types: ["human", "ai", "tool", "ai"],
    });
  });

  it(
    "serves the project's langgraph.json with `trellis serve`, driven by the official SDK client",
    async () => {
      const args = ["serve", "--config", "langgraph.json", "--no-studio"];
      const server = startServer(app, join(app, "node_modules/.bin/trellis"), args, /Trellis server: (\S+)/);
      try {
        const url = await timed("trellis serve langgraph.json start", () => server.url);
        const { stdout } = await sh(app, process.execPath, ["lg-sdk-drive.mjs", url]);
        expect(JSON.parse(stdout)).toEqual({
          assistants: ["weather"],
          next: ["tools"],
          answer: "The forecast: sunny in Lima",
          types: ["human", "ai", "tool", "ai"],
        });
      } finally {
        await stop(server.child);
      }
    },
    2 * MINUTE,
  );

  it("says which packages to install when trellis.json names PostgreSQL and pg is not installed", async () => {
    const failed = await exec(join(app, "node_modules/.bin/trellis"), ["serve", "--config", "trellis-postgres.json"], {
      cwd: app,
      env: cleanEnv({ PORT: "0" }),
    }).then(
      () => undefined,
      (error: { code?: number; stderr?: string; stdout?: string }) => error,
    );
    expect(failed?.code).not.toBe(0);
    expect(`${failed?.stdout}${failed?.stderr}`).toContain("npm install @trellis/checkpoint-postgres pg");
  });

  it("tree-shakes: a bundle importing one export is a fraction of its package", async () => {
    const esbuild = (await import(
      createRequire(join(REPO_ROOT, "package.json")).resolve("esbuild")
    )) as typeof import("esbuild");
    const size = async (contents: string) => {
      const result = await esbuild.build({
        stdin: { contents, resolveDir: app, loader: "ts" },
        bundle: true,
        minify: true,
        format: "esm",
        platform: "node",
        write: false,
        logLevel: "silent",
      });
      return result.outputFiles[0]?.contents.byteLength ?? 0;
    };
    // channel alone is a few KB of @trellis/core's ~100 KB; a message helper is none of the AI SDK's MB
    const channelOnly = await size('import { channel } from "@trellis/core"; console.log(channel);');
    const core = await size('import * as core from "@trellis/core"; console.log(core);');
    expect(channelOnly, `channel: ${channelOnly} B, all of @trellis/core: ${core} B`).toBeLessThan(core * 0.1);
    const messageOnly = await size('import { userMessage } from "@trellis/models"; console.log(userMessage);');
    const models = await size('import * as models from "@trellis/models"; console.log(models);');
    expect(messageOnly, `userMessage: ${messageOnly} B, all of @trellis/models: ${models} B`).toBeLessThan(
      models * 0.01,
    );
  });

  it(
    "adds PostgreSQL and Redis when the project installs them: they install, type-check and load",
    async () => {
      const manifestFile = join(app, "package.json");
      const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { dependencies: Record<string, string> };
      for (const name of DRIVER_PACKAGES) manifest.dependencies[name] = tarball(name);
      await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
      await timed("npm install (drivers)", () => npmInstall(app));
      expect(await exists(join(app, "node_modules/pg"))).toBe(true);
      expect(await typeErrors(app, "tsconfig.drivers.json")).toEqual([]);
      const load = [
        "@trellis/checkpoint-postgres",
        "@trellis/checkpoint-redis",
        "@trellis/server/postgres",
        "@trellis/server/redis",
      ].map((m) => `await import(${JSON.stringify(m)});`);
      await sh(app, process.execPath, ["--input-type=module", "-e", load.join(" ")]);
    },
    5 * MINUTE,
  );
});

describe("the starter", () => {
  let project: string;
  let written: { dependencies: Record<string, string>; overrides?: Record<string, string>; type?: string };

  beforeAll(async () => {
    // the command README.md and docs/installing.md give, from the checkout, on the packed tarballs
    const tarballs = join(work, "tarballs");
    await sh(work, process.execPath, [STARTER_BIN, "my-agent", "--from", tarballs]);
    project = join(work, "my-agent");
    const manifestFile = join(project, "package.json");
    written = JSON.parse(await readFile(manifestFile, "utf8")) as typeof written;
    // the one change the test makes: better-sqlite3 pinned to the workspace's version, so that
    // npmInstall can reuse its native build instead of compiling it (not a Trellis package)
    const manifest = { ...written, overrides: { ...written.overrides, "better-sqlite3": workspaceSqlite.version } };
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    await timed("npm install (starter)", () => npmInstall(project));
  }, 10 * MINUTE);

  it("writes the tarballs as file: dependencies and overrides every @trellis/* package itself", () => {
    expect(written.type).toBe("module");
    for (const [name, range] of Object.entries(written.dependencies)) {
      if (name.startsWith("@trellis/")) expect(range, name).toBe(tarball(name));
    }
    const trellis = packed.filter((p) => p.name.startsWith("@trellis/"));
    expect(written.overrides).toEqual(Object.fromEntries(trellis.map((p) => [p.name, tarball(p.name)])));
  });

  it("scaffolds a project named after its folder, with a .gitignore", async () => {
    const manifest = JSON.parse(await readFile(join(project, "package.json"), "utf8")) as { name: string };
    expect(manifest.name).toBe("my-agent");
    expect(await exists(join(project, ".gitignore"))).toBe(true);
    expect(relative(work, project)).toBe("my-agent");
  });

  it(
    "passes its own tests (npm test) and type-checks",
    async () => {
      const { stdout } = await timed("starter npm test", () => sh(project, "npm", ["test"]));
      expect(stdout).toMatch(/3 passed/);
      expect(await typeErrors(project, "tsconfig.json")).toEqual([]);
    },
    5 * MINUTE,
  );

  it(
    "starts with npm start (trellis dev) and serves its agent",
    async () => {
      const server = startServer(project, "npm", ["start", "--", "--port", "0"], /Trellis server: (\S+)/);
      try {
        const url = await timed("starter npm start", () => server.url);
        const assistants = (await (
          await fetch(`${url}/assistants/search`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}",
          })
        ).json()) as Array<{ graph_id: string }>;
        expect(assistants.map((a) => a.graph_id)).toContain("agent");
      } finally {
        await stop(server.child);
      }
    },
    2 * MINUTE,
  );
});
