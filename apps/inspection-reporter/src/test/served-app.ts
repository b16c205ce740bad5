/**
 * The inspection reporter served by a Trellis server for the file's tests: started before them on a
 * fresh SQLite file with the offline models, closed after, its data folder removed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TrellisConfig } from "@trellis/server";
import { afterAll, beforeAll, vi } from "vitest";
import { type InspectionServer, startInspectionServer } from "../serve.js";
import { closeDefaultInspectionReporter } from "../server-entry.js";

/**
 * Registers the server's start and stop around the file's tests; use `.server` inside a test.
 *
 * @example
 * const app = servedInspectionApp("inspection-doors-");
 * it("…", async () => { await fetch(`${app.server.url}/apps/inspection-reporter/chat`); });
 */
export function servedInspectionApp(
  prefix: string,
  /** Config overrides (auth, say). */
  extra: Partial<TrellisConfig> = {},
): { readonly server: InspectionServer; readonly dir: string } {
  let dir: string | undefined;
  let server: InspectionServer | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    vi.stubEnv("INSPECTION_DATA_DIR", join(dir, "data"));
    vi.stubEnv("INSPECTION_MODEL_PROVIDER", "");
    vi.stubEnv("TRELLIS_MODEL_PROVIDER", "");
    vi.spyOn(console, "info").mockImplementation(() => {});
    server = await startInspectionServer({
      port: 0,
      env: {},
      config: {
        graphs: {
          "inspection-reporter": {
            module: "@trellis/app-inspection-reporter/server",
            graph: "buildGraph",
            routes: "createRoutes",
          },
        },
        saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
        baseDir: dir,
        ...extra,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await closeDefaultInspectionReporter();
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get server() {
      if (!server) throw new Error("the inspection server has not started: use it inside a test");
      return server;
    },
    get dir() {
      if (!dir) throw new Error("the inspection server has not started: use it inside a test");
      return dir;
    },
  };
}
