import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import {
  buildStudio,
  CHROMIUM_FLAGS,
  findChromium,
  freePort,
  REPO_DIR,
  type ServeChild,
  startServe,
} from "./studio-server.js";

/** Debian's Chromium, when installed. */
const executablePath = findChromium();

/** Where the browser tests leave their screenshots. */
export const ARTIFACTS = join(REPO_DIR, "test-artifacts/studio");

/**
 * True when the browser tests run: Chromium is installed, or CI is set (then a missing Chromium fails
 * the run instead of skipping it). Without either, says loudly what is skipped and how to install it.
 *
 * @example
 * describe.runIf(browserTestsRun("the studio's run form"))("…", () => { … });
 */
export function browserTestsRun(what: string): boolean {
  const inCi = Boolean(process.env.CI);
  if (!executablePath && !inCi) {
    console.warn(
      "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n" +
        `!! SKIPPING ${what} in headless Chromium: Debian's chromium is not installed.\n` +
        "!! Install it with: apt-get update && apt-get install -y chromium\n" +
        "!! (.ci/run installs it; with CI set, a missing chromium fails this test.)\n" +
        "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n",
    );
  }
  return Boolean(executablePath || inCi);
}

/** The page and the server of {@link studioInBrowser}, readable once its `beforeAll` has run. */
export interface StudioSession {
  readonly page: Page;
  /** The server's base URL (`http://127.0.0.1:<port>`). */
  readonly url: string;
}

/**
 * Builds the studio, serves it with `trellis serve` (plus `graphs`) in a temp folder and opens it in
 * headless Chromium, for the `describe` it is called in; closes and removes everything after.
 *
 * @example
 * const studio = studioInBrowser("form");
 * it("…", async () => { await studio.page.goto(`${studio.url}/studio/`); });
 */
export function studioInBrowser(
  label: string,
  graphs?: Parameters<typeof startServe>[3],
  setupTimeoutMs = 90_000,
): StudioSession {
  let dir: string | undefined;
  let serve: ServeChild | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;

  beforeAll(async () => {
    if (!executablePath) throw new Error("chromium is missing: apt-get install -y chromium (.ci/run does this)");
    dir = mkdtempSync(join(tmpdir(), `trellis-studio-${label}-`));
    mkdirSync(ARTIFACTS, { recursive: true });
    const port = await freePort();
    const studioDir = join(dir, "studio");
    await buildStudio(studioDir);
    serve = await startServe(join(dir, "server"), studioDir, port, graphs);
    context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1400, height: 1000 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(20_000);
  }, setupTimeoutMs);

  afterAll(async () => {
    await context?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  return {
    get page() {
      if (!page) throw new Error("the browser has not started: use the session inside a test");
      return page;
    },
    get url() {
      if (!serve) throw new Error("the server has not started: use the session inside a test");
      return serve.url;
    },
  };
}
