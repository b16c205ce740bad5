import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { PACKAGE_DIR } from "./harness.js";

/**
 * Starts `serve-child.ts` (TypeScript through tsx) with `args` — a SQLite file, or a Postgres URL and a
 * schema. `url` resolves once it prints `READY <port>`, and rejects, with what it wrote to stderr, if it
 * exits first; `child` is there at once, for the caller to kill whatever happens.
 *
 * @example
 * const { child, url } = launchServeChild([join(dir, "db.sqlite")]);
 * const res = await fetch(`${await url}/ok`);
 */
export function launchServeChild(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(
    process.execPath,
    ["--conditions=@trellis/source", "--import", "tsx", join(PACKAGE_DIR, "src/test/serve-child.ts"), ...args],
    { cwd: PACKAGE_DIR, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr?.on("data", (d) => {
      err += String(d);
    });
    child.stdout?.on("data", (d) => {
      out += String(d);
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    child.once("exit", (code) => reject(new Error(`server child exited (${code}): ${err}`)));
  });
  return { child, url };
}
