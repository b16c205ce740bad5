/**
 * A Trellis server in this process, without a listener: how code outside a server (the CLI, the app's
 * own tests) runs conversations through the same run service as the webhooks of a served app — thread
 * records, the queue, the multitask strategy, the graph's paused-input policy.
 */
import { fileURLToPath } from "node:url";
import { createServer, type TrellisServer } from "@trellis/server";
import type { TwiGraph } from "../graph.js";
import { TWI_ASSISTANT_ID } from "../twi-assistant.js";
import { handOverGraph } from "./in-process-graph.js";

/** Where the in-process server's graph export lives (the source under tsx/vitest, `dist` under node). */
const ENTRY = new URL(`./in-process-graph${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);

/** Servers are opened one at a time: each takes the graph handed over just before it. */
let opening: Promise<unknown> = Promise.resolve();

/**
 * Options of {@link openTwiServer}.
 *
 * @example
 * const options: TwiServerOptions = { graph: app.graph, dbPath: app.config.checkpointDb };
 */
export interface TwiServerOptions {
  /** The graph to serve (the server gives it its own saver on `dbPath`). */
  graph: TwiGraph;
  /** The SQLite file of threads, runs and checkpoints. */
  dbPath: string;
  /** Runs executed at once. Default 2. */
  workers?: number;
}

/**
 * Opens a Trellis server (not listening) that serves `graph` as `twi-author` on a SQLite file. Close
 * it with `server.close()`; a second server on the same file waits until the first is closed.
 *
 * @example
 * const server = await openTwiServer({ graph: app.graph, dbPath: app.config.checkpointDb });
 * const assistant = new TwiAssistant({ runs: server.runs });
 * await server.close();
 */
export function openTwiServer(options: TwiServerOptions): Promise<TrellisServer> {
  const next = opening.then(async () => {
    handOverGraph(options.graph);
    try {
      return await createServer(
        {
          graphs: {
            [TWI_ASSISTANT_ID]: { module: fileURLToPath(ENTRY), graph: "inProcessTwiGraph", name: "TWI author" },
          },
          saver: { kind: "sqlite", path: options.dbPath },
        },
        { env: {}, workers: options.workers ?? 2 },
      );
    } finally {
      handOverGraph(undefined);
    }
  });
  opening = next.catch(() => undefined);
  return next;
}
