/**
 * The starter's command, run as a person runs it (`node bin/create-trellis.js <folder> [--from <dir>]`),
 * on small tarballs made with `tar` the way `npm pack` lays them out (`package/package.json`). The full
 * path — real tarballs from `npm run pack`, `npm install`, the starter's tests and `npm start` — is
 * scripts/packed-install/packed-install.test.ts.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const exec = promisify(execFile);
const BIN = resolve(dirname(fileURLToPath(import.meta.url)), "../bin/create-trellis.js");
const PACKED = ["agents", "cli", "core", "models", "server", "checkpoint-postgres"];

let work: string;

async function packFake(dir: string, name: string, version = "0.1.0"): Promise<string> {
  const stage = await mkdtemp(join(tmpdir(), "fake-pkg-"));
  await mkdir(join(stage, "package"));
  await writeFile(join(stage, "package/package.json"), JSON.stringify({ name, version }));
  await writeFile(join(stage, "package/README.md"), "# a file before package.json in some tarballs\n");
  const file = join(dir, `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`);
  await exec("tar", ["czf", file, "-C", stage, "package/README.md", "package/package.json"]);
  await rm(stage, { recursive: true, force: true });
  return file;
}

async function create(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return exec(process.execPath, [BIN, ...args], { cwd: work }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "create-trellis-"));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("create-trellis --from <tarballs>", () => {
  it("depends on the tarballs with file: paths and overrides every @trellis/* tarball, as an ES module project", async () => {
    await mkdir(join(work, ".packed"));
    const files = Object.fromEntries(
      await Promise.all(
        PACKED.map(async (n) => [`@trellis/${n}`, await packFake(join(work, ".packed"), `@trellis/${n}`)]),
      ),
    ) as Record<string, string>;
    await packFake(join(work, ".packed"), "create-trellis");

    const run = await create(["my-agent", "--from", ".packed"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const pkg = JSON.parse(await readFile(join(work, "my-agent/package.json"), "utf8")) as {
      name: string;
      type: string;
      dependencies: Record<string, string>;
      overrides: Record<string, string>;
    };
    expect(pkg.name).toBe("my-agent");
    expect(pkg.type).toBe("module");
    const trellisDeps = Object.entries(pkg.dependencies).filter(([n]) => n.startsWith("@trellis/"));
    expect(trellisDeps.length).toBeGreaterThan(0);
    for (const [name, range] of trellisDeps) expect(range, name).toBe(`file:${files[name]}`);
    // every @trellis/* tarball, not only the direct dependencies: the packages' own @trellis/* needs
    // resolve to the tarballs too; create-trellis itself is not a dependency of anything
    expect(pkg.overrides).toEqual(Object.fromEntries(Object.entries(files).map(([n, f]) => [n, `file:${f}`])));
  });

  it("refuses a folder that is not there, or lacks a tarball the starter needs, and creates nothing", async () => {
    const absent = await create(["my-agent", "--from", "nowhere"]);
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain("is not a folder. Run `npm run pack`");

    await mkdir(join(work, ".packed"));
    await packFake(join(work, ".packed"), "@trellis/core");
    const partial = await create(["my-agent", "--from", ".packed"]);
    expect(partial.code).toBe(1);
    expect(partial.stderr).toMatch(/holds no tarball of @trellis\/agents, @trellis\/cli, @trellis\/models/);
    expect(existsSync(join(work, "my-agent"))).toBe(false);
  });

  it("says how to use it when --from has no folder or an option is unknown", async () => {
    for (const args of [
      ["my-agent", "--from"],
      ["my-agent", "--form", ".packed"],
    ]) {
      const run = await create(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toContain("--from .packed");
    }
    expect(existsSync(join(work, "my-agent"))).toBe(false);
  });

  it("without --from, pins the @trellis/* packages to the starter's version on the registry", async () => {
    const run = await create(["my-agent"]);
    expect(run.code).toBe(0);
    const pkg = JSON.parse(await readFile(join(work, "my-agent/package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      overrides?: unknown;
    };
    const { version } = JSON.parse(await readFile(resolve(BIN, "../../package.json"), "utf8")) as { version: string };
    expect(pkg.dependencies["@trellis/core"]).toBe(`^${version}`);
    expect(pkg.overrides).toBeUndefined();
  });
});
