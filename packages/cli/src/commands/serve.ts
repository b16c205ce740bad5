import { createServer as createNetServer } from "node:net";
import { createServer, type TrellisServer } from "@trellis/server";
import { checkFlags, type ParsedArgs, stringFlag } from "../args.js";
import { CliError, type CliIo } from "../io.js";
import { loadProject } from "../project.js";
import { findStudioDir, studioFiles } from "../studio-files.js";

/**
 * `trellis serve [--port n] [--host h] [--studio-dir d]`: the server of `trellis.json` with the
 * studio at `/studio`; prints the studio's URL and serves until SIGINT/SIGTERM (or `io.signal`).
 *
 * @example
 * await serveCommand(parseArgs(["serve", "--port", "0"]), io);
 */
export async function serveCommand(args: ParsedArgs, io: CliIo, signal?: AbortSignal): Promise<number> {
  checkFlags(args, ["port", "host", "studio-dir", "no-studio"]);
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
  const server = await createServer(config, {
    env,
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
  out("Press Ctrl+C to stop.");
  await untilStopped(server, signal);
  return 0;
}

/**
 * `trellis worker`: executes queued runs of the config's shared store without serving HTTP
 * (scale-out with a Postgres saver and a Redis queue).
 *
 * @example
 * await workerCommand(parseArgs(["worker"]), io);
 */
export async function workerCommand(args: ParsedArgs, io: CliIo, signal?: AbortSignal): Promise<number> {
  checkFlags(args, []);
  const project = await loadProject(io, stringFlag(args, "config"));
  if (project.resolved.saver.kind === "sqlite") {
    io.stderr.write(
      "Note: with the SQLite saver one process serves and executes runs; workers are for a Postgres saver and a Redis queue.\n",
    );
  }
  const server = await createServer(project.config, { env: io.env });
  io.stdout.write(`Trellis worker ${server.manager.workerId} for ${[...server.graphs.keys()].join(", ")}\n`);
  await untilStopped(server, signal);
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

/** Waits for SIGINT/SIGTERM or the signal, then closes the server (runs in flight stay queued). */
async function untilStopped(server: TrellisServer, signal: AbortSignal | undefined): Promise<void> {
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
  await server.close();
}
