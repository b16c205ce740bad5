/**
 * twi-author served by a Trellis server from the shipped `trellis.json` entry, for tests that drive it
 * over the Agent Server API: a fresh data folder, the offline model, a signing secret; started before
 * the file's tests and closed after.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, vi } from "vitest";
import { type DoorServer, startDoorServer } from "./webhook-door.js";

/** The served app of a test file, and a JSON client of its API. */
export interface ApiDoor {
  readonly door: DoorServer;
  readonly dataDir: string;
  /** GET (no body) or POST (a JSON body) to the server; the status and the parsed JSON answer. */
  api(path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
}

/**
 * Registers the server's start and stop around the file's tests; use its members inside a test.
 * `extraEnv` adds variables, read when the server starts.
 *
 * @example
 * const t = apiDoor("twi-api-input-");
 * it("…", async () => { const { status } = await t.api("/threads", {}); });
 */
export function apiDoor(prefix: string, extraEnv: () => Record<string, string> = () => ({})): ApiDoor {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  let door: DoorServer | undefined;
  beforeAll(async () => {
    vi.stubEnv("TWI_DATA_DIR", dataDir);
    vi.stubEnv("TWI_URL_SIGNING_SECRET", `${prefix}secret-0123456789`);
    for (const name of [
      "TWI_AUDIT_DATABASE_URL",
      "TWI_PUBLIC_BASE_URL",
      "TWI_MODEL_PROVIDER",
      "TRELLIS_MODEL_PROVIDER",
    ]) {
      vi.stubEnv(name, "");
    }
    // read when the server starts: a file's own beforeAll (an emulator started first) may set them
    for (const [name, value] of Object.entries(extraEnv())) vi.stubEnv(name, value);
    door = await startDoorServer();
  });
  afterAll(async () => {
    await door?.close();
    vi.unstubAllEnvs();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const started = (): DoorServer => {
    if (!door) throw new Error("the twi-author server has not started: use it inside a test");
    return door;
  };
  return {
    get door() {
      return started();
    },
    dataDir,
    async api(path, body) {
      const res = await fetch(`${started().url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    },
  };
}
