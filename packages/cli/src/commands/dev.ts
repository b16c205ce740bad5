import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, type FSWatcher, watch } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { checkFlags, type ParsedArgs, stringFlag } from "../args.js";
import type { CliIo } from "../io.js";
import { loadProject, type Project } from "../project.js";

const SOURCE_FILE = /\.(m?[jt]sx?|json)$/;
const IGNORED = /(^|[/\\])(node_modules|dist|\.git|\.trellis|test-artifacts|coverage)([/\\]|$)/;

/**
 * `trellis dev [--port n] [--watch dir]`: `trellis serve` in a child process that runs the graphs'
 * TypeScript sources directly (tsx, the `@trellis/source` condition) and restarts whenever a source
 * file of a graph, or `trellis.json`, changes. Prints the studio's URL at every start.
 *
 * @example
 * await devCommand(parseArgs(["dev"]), io);
 */
export async function devCommand(args: ParsedArgs, io: CliIo, signal?: AbortSignal): Promise<number> {
  checkFlags(args, ["port", "host", "studio-dir", "no-studio", "watch"]);
  const project = await loadProject(io, stringFlag(args, "config"));
  const extra = stringFlag(args, "watch");
  const dirs = watchedDirs(project, extra ? [resolve(io.cwd, extra)] : []);
  const childArgs = ["serve", "--config", project.path];
  for (const name of ["port", "host", "studio-dir"]) {
    const value = stringFlag(args, name);
    if (value !== undefined) childArgs.push(`--${name}`, value);
  }
  if (args.flags.get("no-studio") === true) childArgs.push("--no-studio");
  const say = (line: string) => io.stdout.write(`[trellis dev] ${line}\n`);
  say(`watching ${[project.path, ...dirs].map((d) => relative(io.cwd, d) || ".").join(", ")}`);

  let child: ChildProcess | undefined;
  let restarting = false;
  const start = () => {
    child = spawn(process.execPath, [...nodeFlags(), binPath(), ...childArgs], {
      cwd: io.cwd,
      env: { ...io.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d: Buffer) => io.stdout.write(d));
    child.stderr?.on("data", (d: Buffer) => io.stderr.write(d));
    child.on("exit", (code) => {
      if (!restarting && code !== null && code !== 0)
        say(`the server stopped (exit ${code}); fix the error and save to restart`);
    });
  };
  const stopChild = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((done) => {
      c.once("exit", () => done());
      c.kill("SIGTERM");
      setTimeout(() => c.kill("SIGKILL"), 5_000).unref();
    });
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onChange = (file: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      void (async () => {
        say(`${file} changed: restarting`);
        restarting = true;
        await stopChild();
        restarting = false;
        start();
      })();
    }, 250);
  };
  const watchers: FSWatcher[] = [watch(project.path, () => onChange(relative(io.cwd, project.path)))];
  for (const dir of dirs) {
    watchers.push(
      watch(dir, { recursive: true }, (_event, name) => {
        const file = name ? resolve(dir, name.toString()) : dir;
        if (!SOURCE_FILE.test(file) || IGNORED.test(relative(dir, file))) return;
        onChange(relative(io.cwd, file));
      }),
    );
  }
  start();
  await new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      done();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    if (signal?.aborted) stop();
    signal?.addEventListener("abort", stop);
  });
  clearTimeout(timer);
  for (const w of watchers) w.close();
  await stopChild();
  return 0;
}

/** The nearest folder at or above `dir` that holds a package.json. */
function packageRoot(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "package.json"))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/** The CLI's own entry file, next to this module (`.ts` under tsx, `.js` when built). */
function binPath(): string {
  const here = fileURLToPath(import.meta.url);
  return resolve(dirname(here), `../bin${extname(here)}`);
}

/** Node flags that make the child run TypeScript sources: tsx and the source export condition. */
function nodeFlags(): string[] {
  try {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    return ["--conditions=@trellis/source", "--import", tsx];
  } catch {
    return [];
  }
}

/**
 * The directories to watch (recursively, besides `trellis.json` itself): the folder of every graph module
 * given as a path, and the package folder of every graph given as a package name.
 * @internal
 */
export function watchedDirs(project: Project, extra: string[]): string[] {
  const base = project.resolved.baseDir;
  const dirs = new Set<string>(extra);
  const require = createRequire(resolve(base, "trellis.json"));
  for (const entry of Object.values(project.resolved.graphs)) {
    const spec = entry.module;
    if (spec.startsWith(".") || isAbsolute(spec)) {
      dirs.add(dirname(resolve(base, spec)));
      continue;
    }
    try {
      const root = packageRoot(dirname(require.resolve(spec)));
      if (root) dirs.add(existsSync(join(root, "src")) ? join(root, "src") : root);
    } catch {
      // not resolvable here: its changes need a manual restart
    }
  }
  const sorted = [...dirs].filter((d) => existsSync(d)).sort();
  // a folder inside another watched folder adds nothing
  return sorted.filter((d) => !sorted.some((o) => o !== d && d.startsWith(`${o}/`)));
}
