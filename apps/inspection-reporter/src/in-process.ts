import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createServer, type TrellisServer } from "@trellis/server";
import { createInspectionReporter, type InspectionReporter } from "./inspection-reporter.js";
import { InspectionOrchestrator } from "./orchestrator/orchestrator.js";
import { defaultServerConfig } from "./serve.js";
import { useInspectionReporter } from "./server-entry.js";

/** Options of {@link openInspectionRuntime}. */
export interface InspectionRuntimeOptions {
  /** The SQLite file of threads, runs and checkpoints (the one `serve` uses: `INSPECTION_DB_PATH`). */
  dbPath: string;
  /** The app to serve; one configured from the environment when left out (closed with the runtime). */
  app?: InspectionReporter;
  /** Runs executed at once. Default 1. */
  workers?: number;
}

/** The app behind an in-process Trellis server: what the CLI and the tests talk to. */
export interface InspectionRuntime {
  app: InspectionReporter;
  /** The server (not listening): its `runs`, `store` and `app.request(...)` for the HTTP routes. */
  trellis: TrellisServer;
  /** The orchestrator over the server's run service. */
  orchestrator: InspectionOrchestrator;
  /** Stops the server's workers and closes its stores (and the app, when the runtime made it). */
  close(): Promise<void>;
}

/**
 * Opens the app behind a Trellis server in this process, without a listener: the same run path as
 * `inspection-reporter serve` (thread records, the queue, the graph's paused-input policy), for code
 * outside a server — the CLI's `chat` and `ask`, and tests. The app becomes the process-wide app
 * (`useInspectionReporter`), so the server serves its graph.
 *
 * @example
 * const runtime = await openInspectionRuntime({ dbPath: ".trellis/inspection-reporter/threads.sqlite" });
 * const turn = await runtime.orchestrator.processMessage("t1", "Wat zijn de regels voor koeling?");
 * await runtime.close();
 */
export async function openInspectionRuntime(options: InspectionRuntimeOptions): Promise<InspectionRuntime> {
  const dbPath = resolve(options.dbPath);
  mkdirSync(dirname(dbPath), { recursive: true });
  const app = options.app ?? (await createInspectionReporter());
  const owned = options.app === undefined;
  useInspectionReporter(app);
  let trellis: TrellisServer;
  try {
    trellis = await createServer(defaultServerConfig({ INSPECTION_DB_PATH: dbPath }), {
      env: {},
      workers: options.workers ?? 1,
    });
  } catch (error) {
    if (owned) await app.close();
    throw error;
  }
  return {
    app,
    trellis,
    orchestrator: new InspectionOrchestrator(trellis.runs, { logger: app.logger, settings: app.settings }),
    async close() {
      await trellis.close();
      if (owned) await app.close();
    },
  };
}
