import { createServer, loadConfig, type TrellisConfig, type TrellisServer } from "@trellis/server";
import { DEFAULT_WS_PATH } from "./ag-ui/ag-ui-websocket.js";
import { ASSISTANT_ID } from "./orchestrator/orchestrator.js";

export { ASSISTANT_ID };

/** Options of {@link startInspectionServer}. */
export interface StartInspectionServerOptions {
  /** A `trellis.json` to serve (all of its graphs); it must register `inspection-reporter`. */
  configPath?: string;
  /** A config to serve instead; default {@link defaultServerConfig}. */
  config?: TrellisConfig;
  /** Port; default `PORT`, else the config's (8123). 0 picks a free one. */
  port?: number;
  /** Environment for the server (PORT, service URLs). Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** A running Trellis server with the app's WebSocket attached. */
export interface InspectionServer {
  trellis: TrellisServer;
  /** `http://host:port` */
  url: string;
  /** The AG-UI WebSocket: `ws://host:port/apps/inspection-reporter/ws`. */
  wsUrl: string;
  close(): Promise<void>;
}

/**
 * A Trellis server config that serves only this app, with threads in `INSPECTION_DB_PATH` (default
 * `.trellis/inspection-reporter/threads.sqlite` under the working directory).
 *
 * @example
 * const config = defaultServerConfig({ INSPECTION_DB_PATH: "/data/threads.sqlite" });
 */
export function defaultServerConfig(env: Record<string, string | undefined> = process.env): TrellisConfig {
  return {
    graphs: {
      [ASSISTANT_ID]: {
        module: "@trellis/app-inspection-reporter/server",
        graph: "buildGraph",
        routes: "createRoutes",
        name: "Inspection reporter",
        description: "Seed 004: Dutch food-safety inspection assistant with sticky clarification interrupts.",
      },
    },
    saver: { kind: "sqlite", path: env.INSPECTION_DB_PATH || ".trellis/inspection-reporter/threads.sqlite" },
    baseDir: process.cwd(),
  };
}

/**
 * Starts the Trellis server: REST, SSE, the server's own AG-UI endpoints, and the app's routes under
 * `/apps/inspection-reporter/` — including its AG-UI WebSocket at `/apps/inspection-reporter/ws`, which
 * the app's routes register with the server (authenticated by the server when its auth is on).
 *
 * @example
 * const { wsUrl, close } = await startInspectionServer({ port: 0 });
 */
export async function startInspectionServer(options: StartInspectionServerOptions = {}): Promise<InspectionServer> {
  const env = options.env ?? process.env;
  const config =
    options.config ?? (options.configPath ? await loadConfig(options.configPath) : defaultServerConfig(env));
  const trellis = await createServer(config, { env });
  try {
    if (!trellis.graphs.get(ASSISTANT_ID))
      throw new Error(`The config does not register the "${ASSISTANT_ID}" assistant.`);
    const { url } = await trellis.listen(options.port);
    return {
      trellis,
      url,
      wsUrl: `${url.replace(/^http/, "ws")}${DEFAULT_WS_PATH}`,
      close: () => trellis.close(),
    };
  } catch (error) {
    await trellis.close();
    throw error;
  }
}
