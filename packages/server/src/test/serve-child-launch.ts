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
export function launchServeChild(args: readonly string[], env: NodeJS.ProcessEnv = process.env): LaunchedChild {
  return launchTestChild("serve-child.ts", args, env);
}

/** A child script started by {@link launchTestChild}. */
export interface LaunchedChild {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` once it printed `READY <port>`; rejected if it exits first. */
  url: Promise<string>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
}

/**
 * Starts one of this folder's child scripts (`serve-child.ts`, `cron-child.ts`, `door-child.ts`: each
 * prints `READY <port>` once it serves) the way {@link launchServeChild} does.
 *
 * @example
 * const { child, url } = launchTestChild("cron-child.ts", [POSTGRES_URL, schema]);
 */
export function launchTestChild(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): LaunchedChild {
  let err = "";
  const child = spawn(
    process.execPath,
    ["--conditions=@trellis/source", "--import", "tsx", join(PACKAGE_DIR, "src/test", script), ...args],
    { cwd: PACKAGE_DIR, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stderr?.on("data", (d) => {
      err += String(d);
    });
    child.stdout?.on("data", (d) => {
      out += String(d);
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}): ${err}`)));
  });
  return { child, url, stderr: () => err };
}
