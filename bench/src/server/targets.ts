import { type ChildProcess, fork } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The servers the bench compares. */
export type ServerKind = "trellis" | "floor" | "langgraph";

/** A server running in a child process, and how to stop it. */
export interface Target {
  kind: ServerKind;
  url: string;
  /** The server process's resident set size now, in bytes (Linux `/proc`; undefined elsewhere). */
  rssBytes(): number | undefined;
  stop(): Promise<void>;
}

const SCRIPTS: Record<ServerKind, string> = {
  trellis: "./trellis-server",
  floor: "./floor-server",
  langgraph: "./langgraph-server",
};

/** `.ts` when this module runs from source (vitest), `.js` when built. */
export const EXT = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
/** From source, children run the sources too, through tsx. */
const EXEC_ARGV = EXT === ".ts" ? ["--conditions=@trellis/source", "--import", "tsx"] : [];

/** Whether `dir` holds an install of `@langchain/langgraph-api` the bench can start. */
export function hasLangGraphApi(dir: string | undefined): dir is string {
  return dir !== undefined && existsSync(join(dir, "node_modules/@langchain/langgraph-api/dist/server.mjs"));
}

/**
 * Starts one server in its own process, on 127.0.0.1 and a free port, with its data in a fresh
 * temporary directory under `tmpDir` (removed on stop). `langgraphDir`: the install of
 * `@langchain/langgraph-api`, for `langgraph`. `tracer`: a command to run the server under (its first
 * element the program), e.g. `["strace", "-f", "-c", "-o", file]`.
 */
export async function startTarget(
  kind: ServerKind,
  tmpDir: string,
  langgraphDir?: string,
  tracer?: string[],
): Promise<Target> {
  const dir = mkdtempSync(join(tmpDir, `${kind}-`));
  const script = fileURLToPath(new URL(`${SCRIPTS[kind]}${EXT}`, import.meta.url));
  const args = kind === "langgraph" ? [dir, langgraphDir ?? ""] : [dir];
  const child: ChildProcess = fork(script, args, {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    // `tracer`: a command the server runs under (e.g. strace), given node's path as its last argument
    ...(tracer?.length
      ? { execPath: tracer[0], execArgv: [...tracer.slice(1), process.execPath, ...EXEC_ARGV] }
      : { execArgv: EXEC_ARGV }),
    // LangGraph's server would otherwise try to reach LangSmith
    env: { ...process.env, LANGSMITH_TRACING: "false", LANGCHAIN_TRACING_V2: "false", LOG_LEVEL: "error" },
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("message", (m: { type?: string; url?: string }) => {
      if (m.type === "ready" && m.url) resolve(m.url);
      else reject(new Error(`${kind} server: unexpected ${JSON.stringify(m)}`));
    });
    child.once("exit", (code) => reject(new Error(`${kind} server exited (${code}) before it was ready`)));
  });
  return {
    kind,
    url,
    rssBytes() {
      try {
        const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
        return kb === undefined ? undefined : Number(kb) * 1024;
      } catch {
        return undefined;
      }
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        child.send({ type: "stop" });
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
