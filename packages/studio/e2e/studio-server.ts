import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** packages/studio */
export const STUDIO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The repository root. */
export const REPO_DIR = resolve(STUDIO_DIR, "../..");

/** Where Debian's chromium lives, or undefined when it is not installed. */
export function findChromium(): string | undefined {
  for (const path of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) if (existsSync(path)) return path;
  return undefined;
}

/** The flags the machine notes give for headless Chromium on a closed network, as root. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

/** Runs a command to its end; rejects with its output when it fails. */
export function runToEnd(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("exit", (code) => (code === 0 ? done() : fail(new Error(`${command} ${args.join(" ")} failed:\n${out}`))));
  });
}

/** Builds the studio with its own Vite into `outDir`. */
export async function buildStudio(outDir: string): Promise<void> {
  const vite = join(STUDIO_DIR, "node_modules/vite/bin/vite.js");
  const bin = existsSync(vite) ? vite : join(REPO_DIR, "node_modules/vite/bin/vite.js");
  await runToEnd(
    process.execPath,
    [bin, "build", "--outDir", outDir, "--emptyOutDir", "--logLevel", "warn"],
    STUDIO_DIR,
  );
}

/** The graphs the studio test serves. */
const STUDIO_GRAPHS = {
  "twi-author": {
    module: join(REPO_DIR, "apps/twi-author/src/index.ts"),
    graph: "twiAuthorGraph",
    routes: "twiAuthorRoutes",
    name: "TWI author",
  },
  "approval-flow": { module: join(REPO_DIR, "examples/src/approval-flow.ts"), graph: "buildGraph" },
  "weather-agent": { module: join(STUDIO_DIR, "e2e/weather-agent.ts"), graph: "weatherAgent" },
};

/** A `trellis serve` child process. */
export interface ServeChild {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Writes a config serving twi-author, approval-flow and a weather ReAct agent on a SQLite file in `dir`, and starts
 * `trellis serve` (the CLI's TypeScript sources through tsx) with the studio from `studioDir`.
 */
export async function startServe(
  dir: string,
  studioDir: string,
  port: number,
  graphs: Record<string, unknown> = STUDIO_GRAPHS,
): Promise<ServeChild> {
  mkdirSync(dir, { recursive: true });
  const config = { graphs, saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") } };
  const configPath = join(dir, "trellis.json");
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const env = {
    ...process.env,
    TWI_DATA_DIR: join(dir, "twi"),
    TWI_PUBLIC_BASE_URL: `http://127.0.0.1:${port}/apps/twi-author`,
    TWI_URL_SIGNING_SECRET: "studio-browser-test-secret-0123456789",
  };
  const child = spawn(
    process.execPath,
    [
      "--conditions=@trellis/source",
      "--import",
      "tsx",
      join(REPO_DIR, "packages/cli/src/bin.ts"),
      "serve",
      "--config",
      configPath,
      "--port",
      String(port),
      "--studio-dir",
      studioDir,
    ],
    { cwd: REPO_DIR, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`trellis serve did not start in 30 s:\n${out}`)), 30_000);
    const check = () => {
      const m = /Trellis server: (http:\/\/\S+)/.exec(out);
      if (m && out.includes("Studio:")) {
        clearTimeout(timer);
        done(m[1] as string);
      }
    };
    child.stdout?.on("data", check);
    child.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`trellis serve exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}
