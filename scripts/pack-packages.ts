/**
 * Packs every publishable package (each `packages/<name>` whose package.json is not private) into a
 * tarball, the way it is published: `npm run pack` writes them to `.packed/`, and a release publishes
 * exactly those files (`npm publish .packed/<file>.tgz`, see docs/versioning.md).
 *
 * Each package is packed from a staging copy whose package.json drops what only the workspace uses:
 * the `@trellis/source` export condition (it points at `src/`, which is not shipped), `scripts` and
 * `devDependencies`. The package's own `files` list still decides what goes in. A root LICENSE is added
 * when the package has none.
 *
 * @example
 * // from the repository root, after `npm run build`:
 * //   npm run pack            → .packed/trellis-core-0.1.0.tgz, …
 * const packed = await packPackages({ outDir: "/tmp/tarballs" });
 * packed.map((p) => p.tarball);
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** A package.json as far as packing reads it. */
export interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  files?: string[];
  exports?: Record<string, unknown>;
  bin?: string | Record<string, string>;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  [key: string]: unknown;
}

/** A publishable package found in the workspace. */
export interface WorkspacePackage {
  dir: string;
  manifest: PackageJson;
}

/** One packed tarball: the package, its file, and the paths inside it (relative to `package/`). */
export interface PackedPackage {
  name: string;
  version: string;
  dir: string;
  tarball: string;
  files: string[];
  /** The package.json as published. */
  manifest: PackageJson;
}

/** The workspace's publishable packages (not private), in directory order. */
export async function publishablePackages(root = REPO_ROOT): Promise<WorkspacePackage[]> {
  const found: WorkspacePackage[] = [];
  for (const name of (await readdir(join(root, "packages"))).sort()) {
    const dir = join(root, "packages", name);
    let manifest: PackageJson;
    try {
      manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as PackageJson;
    } catch {
      continue;
    }
    if (manifest.private !== true) found.push({ dir, manifest });
  }
  return found;
}

/** The package.json as published: the workspace-only export condition, scripts and dev dependencies removed. */
export function publishedManifest(manifest: PackageJson): PackageJson {
  const { scripts: _scripts, devDependencies: _dev, ...published } = manifest;
  if (published.exports) published.exports = withoutSourceCondition(published.exports) as Record<string, unknown>;
  return published;
}

function withoutSourceCondition(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "@trellis/source")
      .map(([key, inner]) => [key, withoutSourceCondition(inner)]),
  );
}

/** Builds the TypeScript packages (`tsc -b`) and the studio (Vite), as `npm run build` does. */
export async function buildPackages(root = REPO_ROOT): Promise<void> {
  try {
    await run("npx", ["tsc", "-b"], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  } catch {
    // tsc emits even with type errors; `npm run typecheck` is the gate for those. A missing output
    // file still fails the pack checks (the export map names files that must be in the tarball).
  }
  await run("npm", ["run", "build", "-w", "@trellis/studio"], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
}

/** Packs every publishable package into `outDir` (created if needed). Build first. */
export async function packPackages(options: { outDir: string; root?: string }): Promise<PackedPackage[]> {
  const root = options.root ?? REPO_ROOT;
  await mkdir(options.outDir, { recursive: true });
  const staging = await mkdtemp(join(tmpdir(), "trellis-stage-"));
  try {
    const packages = await publishablePackages(root);
    const stageDirs: string[] = [];
    for (const pkg of packages) {
      const stage = join(staging, pkg.manifest.name.replace(/^@/, "").replace("/", "-"));
      await mkdir(stage);
      for (const entry of await readdir(pkg.dir)) {
        if (entry === "node_modules" || entry === "package.json" || entry === "src") continue;
        // nested node_modules (a tool's cache inside a shipped folder) never go in
        await cp(join(pkg.dir, entry), join(stage, entry), {
          recursive: true,
          filter: (source) => !/[\\/]node_modules([\\/]|$)/.test(source.slice(pkg.dir.length)),
        });
      }
      const entries = await readdir(pkg.dir);
      if (!entries.some((e) => /^licen[cs]e/i.test(e))) await cp(join(root, "LICENSE"), join(stage, "LICENSE"));
      await writeFile(join(stage, "package.json"), `${JSON.stringify(publishedManifest(pkg.manifest), null, 2)}\n`);
      stageDirs.push(stage);
    }
    const { stdout } = await run(
      "npm",
      ["pack", ...stageDirs, "--pack-destination", options.outDir, "--json", "--ignore-scripts"],
      { cwd: staging, maxBuffer: 64 * 1024 * 1024 },
    );
    const results = JSON.parse(stdout) as Array<{
      name: string;
      version: string;
      filename: string;
      files: { path: string }[];
    }>;
    return results.map((r, i) => {
      const pkg = packages[i] as WorkspacePackage;
      return {
        name: r.name,
        version: r.version,
        dir: pkg.dir,
        tarball: join(options.outDir, r.filename),
        files: r.files.map((f) => f.path).sort(),
        manifest: publishedManifest(pkg.manifest),
      };
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = join(REPO_ROOT, ".packed");
  await rm(outDir, { recursive: true, force: true });
  if (!process.argv.includes("--no-build")) await buildPackages();
  for (const p of await packPackages({ outDir })) console.log(`${p.tarball}  (${p.files.length} files)`);
}
