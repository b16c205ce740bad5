#!/usr/bin/env node
/**
 * `trellis-server [serve] [path/to/trellis.json]`: serves the graphs of a config on PORT (default 8123).
 * `trellis-server worker [path]`: executes queued runs without serving HTTP (scale-out, with a Postgres
 * saver and a Redis queue in the config).
 */
import { startServer, startWorker } from "./server.js";

async function main(argv: string[]): Promise<void> {
  const args = argv.slice(2);
  const command = args[0] === "serve" || args[0] === "worker" ? args.shift() : "serve";
  const path = args[0] ?? "trellis.json";
  if (command === "worker") await startWorker(path);
  else await startServer(path);
}

main(process.argv).catch((error: unknown) => {
  console.error(`[trellis-server] ${(error as Error)?.message ?? String(error)}`);
  process.exit(1);
});
