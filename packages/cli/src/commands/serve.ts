import { createServer as createNetServer } from "node:net";
import { createServer, resolveConfig, type TrellisServer } from "@trellis/server";
import { checkFlags, type ParsedArgs, stringFlag } from "../args.js";
import { CliError, type CliIo } from "../io.js";
import { otlpTracesUrl, startOtlpExport } from "../otel-export.js";
import { loadProject } from "../project.js";
import { findStudioDir, studioFiles } from "../studio-files.js";

export { workerCommand } from "./worker.js";

/**
 * `trellis serve [--port n] [--host h] [--studio-dir d] [--workers n]`: the server of `trellis.json`
 * with the studio at `/studio`; prints the studio's URL and serves until SIGINT/SIGTERM (or
 * `io.signal`). With a Redis queue (scale-out) it executes no runs — `trellis worker`s do — unless
 * `--workers n` says how many it should execute at once.
 *
 * @example
 * await serveCommand(parseArgs(["serve", "--port", "0"]), io);
 */
export async function serveCommand(args: ParsedArgs, io: CliIo, signal?: AbortSignal): Promise<number> {
  checkFlags(args, ["port", "host", "studio-dir", "no-studio", "workers"]);
  const workersFlag = stringFlag(args, "workers");
  const workers = workersFlag === undefined ? undefined : Number(workersFlag);
  if (workers !== undefined && !(Number.isInteger(workers) && workers >= 0)) {
    throw new CliError(`--workers must be a whole number (0 or more), got "${workersFlag}".`, 2);
  }
  const project = await loadProject(io, stringFlag(args, "config"));
  const env = { ...io.env };
  const port = stringFlag(args, "port");
  if (port !== undefined) env.PORT = port;
  const host = stringFlag(args, "host");
  const config = host ? { ...project.config, host } : project.config;
  const studioDir = findStudioDir(stringFlag(args, "studio-dir"), io.env);
  const withStudio = args.flags.get("no-studio") !== true;
  const wanted = Number(env.PORT ?? config.port ?? 8123);
  await checkPortFree(wanted, config.host ?? "127.0.0.1");
  // scale-out (a shared Redis queue): API processes execute nothing unless told to
  const shared = resolveConfig(config, env).queue.kind === "redis";
  const stopTracing = await startOtlpExport(env);
  const server = await createServer(config, {
    env,
    ...(workers !== undefined ? { workers } : shared ? { workers: 0 } : {}),
    ...(withStudio ? { publicRoutes: [{ path: "/studio", app: studioFiles(studioDir) }] } : {}),
  });
  const { url } = await server.listen();
  const out = (line: string) => io.stdout.write(`${line}\n`);
  out(`Trellis server: ${url}  (graphs: ${[...server.graphs.keys()].join(", ") || "none"})`);
  if (withStudio) {
    out(`Studio: ${url}/studio/`);
    if (!studioDir) io.stderr.write("The studio is not built: run `npm run build` to build @trellis/studio.\n");
  }
  const saver = server.config.saver;
  out(`Saver: ${saver.kind === "sqlite" ? `SQLite ${saver.path}` : "Postgres"} · queue: ${server.config.queue.kind}`);
  if (shared && !workers) out("Runs: executed by `trellis worker` processes (pass --workers n to execute here too).");
  for (const line of server.authBanner()) out(line);
  if (stopTracing) out(`Traces: OTLP/HTTP to ${otlpTracesUrl(env)}`);
  out("Press Ctrl+C to stop.");
  await untilStopped(server, signal);
  await stopTracing?.();
  return 0;
}

async function checkPortFree(port: number, host: string): Promise<void> {
  if (!Number.isInteger(port) || port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new CliError(`Port ${port} on ${host} is taken: stop the other server, or pass --port <n> (or PORT=<n>).`)
          : error,
      );
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/**
 * Waits for SIGINT/SIGTERM or the signal, then closes the server (runs in flight stay queued). With
 * `drainMs`, runs in flight first get that long to finish their superstep in progress. @internal
 */
export async function untilStopped(
  server: TrellisServer,
  signal: AbortSignal | undefined,
  options: { drainMs?: number } = {},
): Promise<void> {
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      signal?.removeEventListener("abort", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    if (signal?.aborted) stop();
    signal?.addEventListener("abort", stop);
  });
  if (options.drainMs) await server.manager.stop({ drainMs: options.drainMs });
  await server.close();
}
