#!/usr/bin/env node
// @ts-check
/**
 * `npm create trellis@latest my-agent` (or, from a Trellis checkout,
 * `node packages/create-trellis/bin/create-trellis.js my-agent`): copies the starter template into a new
 * folder, names the project after it, and pins the `@trellis/*` packages to this starter's version.
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { cp } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const usage = "Usage: npm create trellis@latest <project-folder>";

/**
 * Creates the project in `target` and returns its absolute path.
 *
 * @param {string} target folder to create (must not exist, or be empty)
 * @returns {Promise<string>}
 */
export async function createProject(target) {
  const dir = resolve(target);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new Error(`${dir} exists and is not empty: choose a new folder name.`);
  }
  const { version } = JSON.parse(readFileSync(join(here, "..", "package.json"), "utf8"));
  await cp(join(here, "..", "template"), dir, { recursive: true });
  // npm leaves .gitignore files out of published packages: the template ships it as _gitignore
  renameSync(join(dir, "_gitignore"), join(dir, ".gitignore"));
  const pkgFile = join(dir, "package.json");
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  pkg.name = npmName(basename(dir));
  for (const deps of [pkg.dependencies, pkg.devDependencies]) {
    for (const name of Object.keys(deps ?? {})) if (name.startsWith("@trellis/")) deps[name] = `^${version}`;
  }
  writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  return dir;
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
  const target = process.argv[2];
  if (!target || target.startsWith("-")) {
    console.error(usage);
    process.exit(target === "--help" || target === "-h" ? 0 : 2);
  }
  try {
    const dir = await createProject(target);
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
