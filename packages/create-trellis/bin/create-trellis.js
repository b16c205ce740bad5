#!/usr/bin/env node
// @ts-check
/**
 * `npm create trellis@latest my-agent` (or, from a Trellis checkout,
 * `node packages/create-trellis/bin/create-trellis.js my-agent --from .packed`): copies the starter
 * template into a new folder, names the project after it, and pins the `@trellis/*` packages to this
 * starter's version — or, with `--from <dir>`, to the tarballs `npm run pack` wrote there (`file:`
 * dependencies, plus an `overrides` entry for every `@trellis/*` tarball so that the packages' own
 * `@trellis/*` dependencies resolve to the tarballs too, not to the registry).
 */
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { cp } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const usage = `Usage: npm create trellis@latest <project-folder>
   or, from a Trellis checkout (after \`npm run pack\`):
       node packages/create-trellis/bin/create-trellis.js <project-folder> --from .packed`;

/**
 * Creates the project in `target` and returns its absolute path.
 *
 * @param {string} target folder to create (must not exist, or be empty)
 * @param {{ from?: string }} [options] `from`: a folder of packed tarballs (`npm run pack` writes
 *   `.packed/`); the project then depends on them instead of the registry
 * @returns {Promise<string>}
 * @example
 * await createProject("../my-agent", { from: ".packed" });
 * // ../my-agent/package.json: "@trellis/core": "file:/…/.packed/trellis-core-0.1.0.tgz", …, "overrides": { … }
 */
export async function createProject(target, options = {}) {
  const dir = resolve(target);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new Error(`${dir} exists and is not empty: choose a new folder name.`);
  }
  const tarballs = options.from === undefined ? undefined : packedTarballs(options.from);
  const { version } = JSON.parse(readFileSync(join(here, "..", "package.json"), "utf8"));
  const template = JSON.parse(readFileSync(join(here, "..", "template", "package.json"), "utf8"));
  const missing = trellisDependencies(template).filter((name) => tarballs && !tarballs.has(name));
  if (missing.length > 0) {
    throw new Error(
      `${resolve(options.from ?? "")} holds no tarball of ${missing.join(", ")}: run \`npm run pack\` in the Trellis checkout first.`,
    );
  }
  await cp(join(here, "..", "template"), dir, { recursive: true });
  // npm leaves .gitignore files out of published packages: the template ships it as _gitignore
  renameSync(join(dir, "_gitignore"), join(dir, ".gitignore"));
  const pkgFile = join(dir, "package.json");
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  pkg.name = npmName(basename(dir));
  for (const deps of [pkg.dependencies, pkg.devDependencies]) {
    for (const name of Object.keys(deps ?? {})) {
      if (name.startsWith("@trellis/")) deps[name] = tarballs ? `file:${tarballs.get(name)}` : `^${version}`;
    }
  }
  if (tarballs) {
    pkg.overrides = { ...pkg.overrides, ...Object.fromEntries([...tarballs].map(([n, f]) => [n, `file:${f}`])) };
  }
  writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  return dir;
}

/**
 * The `@trellis/*` packages a package.json depends on (dependencies and devDependencies).
 *
 * @param {{ dependencies?: Record<string, string>, devDependencies?: Record<string, string> }} pkg
 * @returns {string[]}
 */
function trellisDependencies(pkg) {
  return [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})].filter((n) =>
    n.startsWith("@trellis/"),
  );
}

/**
 * The `@trellis/*` tarballs in a folder, by package name (read from each tarball's package.json), as
 * absolute paths.
 *
 * @param {string} from folder holding `npm pack` tarballs
 * @returns {Map<string, string>}
 */
export function packedTarballs(from) {
  const folder = resolve(from);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new Error(`--from ${from}: ${folder} is not a folder. Run \`npm run pack\` in the Trellis checkout first.`);
  }
  /** @type {Map<string, string>} */
  const found = new Map();
  for (const file of readdirSync(folder).sort()) {
    if (!file.endsWith(".tgz")) continue;
    const { name } = JSON.parse(tarEntry(join(folder, file), "package/package.json"));
    if (typeof name === "string" && name.startsWith("@trellis/")) found.set(name, join(folder, file));
  }
  if (found.size === 0) {
    throw new Error(`--from ${from}: ${folder} holds no @trellis/* tarball. Run \`npm run pack\` first.`);
  }
  return found;
}

/**
 * One file of a .tgz as text (the tar format: 512-byte headers, each followed by its content padded
 * to 512 bytes).
 *
 * @param {string} tgz
 * @param {string} path
 */
function tarEntry(tgz, path) {
  const tar = gunzipSync(readFileSync(tgz));
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    const name = field(header, 0, 100);
    if (name === "") break;
    const prefix = field(header, 345, 155);
    const size = Number.parseInt(field(header, 124, 12) || "0", 8);
    if ((prefix ? `${prefix}/${name}` : name) === path) return tar.subarray(at + 512, at + 512 + size).toString("utf8");
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${tgz} has no ${path}: is it a package made by npm pack?`);
}

/**
 * @param {Buffer} header
 * @param {number} start
 * @param {number} length
 */
function field(header, start, length) {
  return header
    .subarray(start, start + length)
    .toString("utf8")
    .replace(/\0.*$/s, "")
    .trim();
}

/**
 * A valid npm package name made from a folder name.
 *
 * @param {string} folder
 */
function npmName(folder) {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+/, "");
  return name || "my-agent";
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage);
    process.exit(0);
  }
  /** @type {string | undefined} */
  let from;
  /** @type {string[]} */
  const positional = [];
  for (let i = 0; i < args.length; i++) {
    const arg = /** @type {string} */ (args[i]);
    if (arg === "--from") from = args[++i];
    else if (arg.startsWith("--from=")) from = arg.slice("--from=".length);
    else positional.push(arg);
  }
  const [target, ...extra] = positional;
  const unknown = positional.find((a) => a.startsWith("-"));
  if (!target || unknown || extra.length > 0 || (args.some((a) => a === "--from") && !from)) {
    const problem = unknown
      ? `unknown option ${unknown}`
      : !target
        ? "no project folder given"
        : extra.length > 0
          ? `one project folder, not ${positional.length}`
          : "--from needs a folder of tarballs";
    console.error(`${problem}\n${usage}`);
    process.exit(2);
  }
  try {
    const dir = await createProject(target, from === undefined ? {} : { from });
    const cd = relative(process.cwd(), dir) || ".";
    console.log(`Created a Trellis agent in ${dir}\n`);
    console.log(`  cd ${cd}`);
    console.log("  npm install && npm start   # server + studio on http://127.0.0.1:8123/studio/");
    console.log("  npm install && npm test    # the agent's tests, on the scripted model\n");
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
