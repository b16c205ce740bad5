import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer, credentialAuth, type TrellisServer } from "@trellis/server";
import { checkFlags, type ParsedArgs, stringFlag } from "../args.js";
import { CliError, type CliIo } from "../io.js";
import { startOtlpExport } from "../otel-export.js";
import { loadProject } from "../project.js";
import { untilStopped } from "./serve.js";

/** How long SIGTERM lets a worker's runs finish their superstep in progress before handing them back. */
const DEFAULT_DRAIN_MS = 10_000;

/**
 * `trellis worker [--health-port n] [--drain-ms n]`: executes queued runs of the config's shared store
 * without serving the API (scale-out with a Postgres saver and a Redis queue). `--health-port` serves
 * `GET /health` (200 while the worker is up and its last heartbeat went through, else 503): to anyone,
 * the status and how many runs it executes; to a request bearing one of the config's credentials
 * (auth on), also which runs and the heartbeat's error. On SIGTERM/SIGINT it stops claiming, lets its runs finish the superstep in progress for up
 * to `--drain-ms` (10 s), and hands the rest back to the queue, where another worker continues them
 * from their last checkpoint.
 *
 * @example
 * await workerCommand(parseArgs(["worker", "--health-port", "9464"]), io);
 */
export async function workerCommand(args: ParsedArgs, io: CliIo, signal?: AbortSignal): Promise<number> {
  checkFlags(args, ["health-port", "drain-ms"]);
  const healthPort = intFlag(args, "health-port");
  const drainMs = intFlag(args, "drain-ms") ?? DEFAULT_DRAIN_MS;
  const project = await loadProject(io, stringFlag(args, "config"));
  if (project.resolved.saver.kind === "sqlite") {
    io.stderr.write(
      "Note: with the SQLite saver one process serves and executes runs; workers are for a Postgres saver and a Redis queue.\n",
    );
  }
  const stopTracing = await startOtlpExport(io.env);
  const server = await createServer(project.config, { env: io.env });
  io.stdout.write(`Trellis worker ${server.manager.workerId} for ${[...server.graphs.keys()].join(", ")}\n`);
  const auth = project.resolved.auth;
  const authenticate = auth.enabled ? credentialAuth(auth.credentials) : () => null;
  const health =
    healthPort === undefined ? undefined : await serveHealth(server, healthPort, project.resolved.host, authenticate);
  if (health)
    io.stdout.write(`Health: http://${project.resolved.host}:${(health.address() as AddressInfo).port}/health\n`);
  try {
    await untilStopped(server, signal, { drainMs });
  } finally {
    await new Promise<void>((resolve) => (health ? health.close(() => resolve()) : resolve()));
    await stopTracing?.();
  }
  return 0;
}

function intFlag(args: ParsedArgs, name: string): number | undefined {
  const raw = stringFlag(args, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`--${name} must be a whole number, got "${raw}".`, 2);
  return n;
}

/**
 * `GET /health` of a worker: whether it is up and its last heartbeat reached the store, and how many
 * runs it executes. Which runs, and the heartbeat's error (which may name hosts), only for a request
 * that `authenticate` resolves to a user: the port may be reachable by more than the operators.
 */
function serveHealth(
  server: TrellisServer,
  port: number,
  host: string,
  authenticate: (request: Request) => string | null | Promise<string | null>,
): Promise<Server> {
  const http = createHttpServer((req, res) => {
    void (async () => {
      if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/health") {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":"NOT_FOUND"}');
        return;
      }
      const headers = new Headers();
      for (const name of ["x-api-key", "authorization"]) {
        const v = req.headers[name];
        if (typeof v === "string") headers.set(name, v);
      }
      const user = await authenticate(new Request("http://worker/health", { headers }));
      const h = server.manager.health();
      const ok = !h.stopping && (h.lastHeartbeat?.ok ?? true);
      const beat = h.lastHeartbeat && { at: h.lastHeartbeat.at, ok: h.lastHeartbeat.ok };
      const body =
        user === null
          ? {
              ok,
              worker: h.worker,
              concurrency: h.concurrency,
              activeRuns: h.active.length,
              stopping: h.stopping,
              lastHeartbeat: beat,
            }
          : { ok, ...h, activeRuns: h.active.length };
      res.writeHead(ok ? 200 : 503, { "content-type": "application/json" }).end(JSON.stringify(body));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end('{"error":"INTERNAL"}');
    });
  });
  return new Promise((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, host, () => resolve(http));
  });
}
