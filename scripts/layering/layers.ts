/**
 * The layering rule of the workspace (docs/architecture.md): a package imports only packages of a
 * lower layer, never one of its own layer or above —
 * common ← protocol/checkpoint ← core and the savers ← models ← agents/langgraph ← server/studio ←
 * cli, apps, test harnesses, bench. Read from every package's package.json dependencies (all kinds)
 * and from the import specifiers of its TypeScript sources (tests included).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";

/** Each workspace package's layer; a package not listed is refused (say where a new one belongs). */
export const LAYERS: Readonly<Record<string, number>> = {
  "@trellis/common": 0,
  "@trellis/protocol": 1,
  "@trellis/checkpoint": 1,
  "@trellis/core": 2,
  "@trellis/checkpoint-sqlite": 2,
  "@trellis/checkpoint-postgres": 2,
  "@trellis/checkpoint-redis": 2,
  "@trellis/models": 3,
  "@trellis/agents": 4,
  "@trellis/langgraph": 4,
  "@trellis/server": 5,
  "@trellis/studio": 5,
  "@trellis/cli": 6,
  "@trellis/reliability": 6,
  "@trellis/examples": 6,
  "create-trellis": 6,
  "@trellis/app-infra-pipeline": 6,
  "@trellis/app-inspection-reporter": 6,
  "@trellis/app-market-assistant": 6,
  "@trellis/app-tutor": 6,
  "@trellis/app-twi-author": 6,
  "@trellis/bench": 7,
  "@trellis/checkpoint-e2e": 7,
};

/** One import that breaks the rule: who imports whom, and where it is written. */
export interface LayerViolation {
  from: string;
  to: string;
  /** `package.json (dependencies)` or a source file and line, relative to the root. */
  where: string;
}

interface WorkspacePackage {
  name: string;
  dir: string;
  manifest: Record<string, unknown>;
}

/** The workspace packages of the root's `workspaces` globs (`dir/*` or a plain directory). */
export function workspacePackages(root: string): WorkspacePackage[] {
  const globs = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] }).workspaces;
  const dirs = globs.flatMap((g) =>
    g.endsWith("/*")
      ? readdirSync(join(root, g.slice(0, -2))).map((d) => join(root, g.slice(0, -2), d))
      : [join(root, g)],
  );
  return dirs
    .filter((d) => existsSync(join(d, "package.json")))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
      return { name: manifest.name as string, dir, manifest };
    });
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === "dist" || entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx|mts|cts)$/.test(entry) && !entry.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bvi\.mock\s*\(\s*)["']([^"']+)["']/g;

/** The workspace package a specifier names: a package name (or its subpath), or a relative path into another package's folder. */
function target(
  spec: string,
  file: string,
  byName: Map<string, WorkspacePackage>,
  byDir: WorkspacePackage[],
): string | undefined {
  if (spec.startsWith(".")) {
    const path = resolve(file, "..", spec);
    return byDir.find((p) => path === p.dir || path.startsWith(p.dir + sep))?.name;
  }
  const parts = spec.split("/");
  const name = spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string);
  return byName.has(name) ? name : undefined;
}

/**
 * Every import in the workspace at `root` that points at a package of the same or a higher layer, and
 * every workspace package without a layer.
 *
 * @example
 * const violations = findLayerViolations(process.cwd());
 * for (const v of violations) console.log(`${v.from} -> ${v.to} (${v.where})`);
 */
export function findLayerViolations(root: string, layers: Readonly<Record<string, number>> = LAYERS): LayerViolation[] {
  const packages = workspacePackages(root);
  const byName = new Map(packages.map((p) => [p.name, p]));
  const out: LayerViolation[] = [];
  const check = (from: string, to: string, where: string) => {
    if (from === to) return;
    const a = layers[from];
    const b = layers[to];
    if (a === undefined || b === undefined || b >= a) out.push({ from, to, where });
  };
  for (const p of packages) {
    if (layers[p.name] === undefined) out.push({ from: p.name, to: "(no layer)", where: "scripts/layering/layers.ts" });
    for (const kind of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
      for (const dep of Object.keys((p.manifest[kind] as Record<string, string> | undefined) ?? {})) {
        if (byName.has(dep)) check(p.name, dep, `${relative(root, join(p.dir, "package.json"))} (${kind})`);
      }
    }
    for (const file of sourceFiles(p.dir)) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, i) => {
        for (const m of line.matchAll(SPECIFIER)) {
          const to = target(m[1] as string, file, byName, packages);
          if (to) check(p.name, to, `${relative(root, file)}:${i + 1}`);
        }
      });
    }
  }
  return out;
}
