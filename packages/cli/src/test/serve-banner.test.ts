import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeProject, REPO_DIR, startCli, type TestProject } from "./cli-harness.js";

let project: TestProject;
let dataDir: string;
beforeEach(() => {
  project = makeProject();
  dataDir = mkdtempSync(join(tmpdir(), "trellis-cli-twi-"));
  // twi-author reads its settings from the process environment: the shipped defaults, no webhook secrets.
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "banner-test-secret-0123456789");
  for (const name of [
    "TEAMS_APP_ID",
    "TEAMS_VERIFY_REQUESTS",
    "TELEGRAM_WEBHOOK_SECRET",
    "TWI_ALLOW_UNVERIFIED_WEBHOOKS",
  ]) {
    vi.stubEnv(name, "");
  }
});
afterEach(() => {
  vi.unstubAllEnvs();
  project.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("trellis serve's banner", () => {
  it("says whether auth is on and lists every route that answers without it, with its check", async () => {
    writeFileSync(
      project.config,
      JSON.stringify({
        graphs: {
          "twi-author": {
            module: join(REPO_DIR, "apps/twi-author/src/index.ts"),
            graph: "twiAuthorGraph",
            routes: "twiAuthorRoutes",
            routesAuth: "app",
          },
        },
        saver: { kind: "sqlite", path: "trellis.sqlite" },
        auth: { enabled: true, credentials: [{ user: "ana", apiKey: "key-ana" }] },
      }),
    );
    const serve = startCli(project, ["serve", "--port", "0", "--no-studio"], /Press Ctrl\+C/);
    await serve.started;
    const out = serve.output();
    expect(await serve.stop()).toBe(0);
    expect(out).toContain("Auth is on. Routes that answer without the server's credentials:");
    expect(out).toMatch(/GET\s+\/ok\s+public/);
    expect(out).toMatch(/POST\s+\/apps\/twi-author\/teams\/messages\s+refused: answers 503 because TEAMS_APP_ID/);
    expect(out).toMatch(/POST\s+\/apps\/twi-author\/telegram\/webhook\s+refused: .*TELEGRAM_WEBHOOK_SECRET/);
    expect(out).toMatch(/GET\s+\/apps\/twi-author\/blobs\/\*\s+verified: HMAC-signed link/);
    // Printed before "Press Ctrl+C", with the rest of the banner.
    expect(out.indexOf("Auth is on")).toBeLessThan(out.indexOf("Press Ctrl+C"));
  });
});
