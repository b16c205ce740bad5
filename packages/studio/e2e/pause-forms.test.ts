/**
 * The interrupt panel in headless Chromium draws a declared pause from `@trellis/protocol` the way the
 * CLI asks it: a `form` (JSON Schema) field by field, refusing a value that does not fit its type, then
 * LangChain's HITL review with its allowed decisions only. The graph is the CLI's `pauseKindsGraph`
 * fixture, so both doors answer the same pauses.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildStudio,
  CHROMIUM_FLAGS,
  findChromium,
  freePort,
  REPO_DIR,
  type ServeChild,
  startServe,
} from "./studio-server.js";

const executablePath = findChromium();
const inCi = Boolean(process.env.CI);
if (!executablePath && !inCi) {
  console.warn(
    "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n" +
      "!! SKIPPING the studio pause-forms browser test: Debian's chromium is not installed.\n" +
      "!! Install it with: apt-get update && apt-get install -y chromium\n" +
      "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n",
  );
}

describe.runIf(executablePath || inCi)("declared pauses in the studio's interrupt panel", () => {
  let dir: string;
  let serve: ServeChild | undefined;
  let context: BrowserContext | undefined;
  let page: Page;

  beforeAll(async () => {
    if (!executablePath) throw new Error("chromium is missing: apt-get install -y chromium (.ci/run does this)");
    dir = mkdtempSync(join(tmpdir(), "trellis-studio-pauses-"));
    mkdirSync(join(REPO_DIR, "test-artifacts/studio"), { recursive: true });
    const port = await freePort();
    const studioDir = join(dir, "studio");
    await buildStudio(studioDir);
    serve = await startServe(join(dir, "server"), studioDir, port, {
      "pause-kinds": { module: join(REPO_DIR, "packages/cli/src/test/fixture-graphs.ts"), graph: "pauseKindsGraph" },
    });
    context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1400, height: 1000 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(20_000);
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const state = async (threadId: string) =>
    ((await (await fetch(`${serve?.url}/threads/${threadId}/state`)).json()) as { values: Record<string, unknown> })
      .values;

  it("answers a JSON-Schema form, then a HITL review, with what the graph declared", async () => {
    await page.goto(`${serve?.url}/studio/#/graph/pause-kinds`);
    await page.getByTestId("start-run").click();
    const form = page.getByTestId("schema-form");
    await form.waitFor();
    expect(await page.locator("[data-pause-kind]").getAttribute("data-pause-kind")).toBe("form");
    expect(await page.getByTestId("form-visits").getAttribute("type")).toBe("number");

    // a required field left empty is refused, and nothing is sent
    await page.getByTestId("form-send").click();
    await form.getByText("Address is required.").waitFor();

    await page.getByTestId("form-address").fill("Hoofdstraat 2");
    await page.getByTestId("form-visits").fill("3");
    await page.getByTestId("form-send").click();

    const review = page.getByTestId("review-form");
    await review.waitFor();
    expect(await review.textContent()).toContain("File the report?");
    // the request allows approve and reject only: no edit, no respond
    expect(await review.getByRole("button").allTextContents()).toEqual(["Approve", "Reject"]);
    await page.getByTestId("review-message").fill("needs photos");
    await review.getByRole("button", { name: "Reject" }).click();

    await expect.poll(() => page.getByTestId("thread-status").textContent()).toBe("idle");
    const threadId = page.url().split("#/thread/")[1] as string;
    expect(await state(threadId)).toMatchObject({
      site: { address: "Hoofdstraat 2", visits: 3 },
      verdict: { decisions: [{ type: "reject", message: "needs photos" }] },
    });
    await page.screenshot({ path: join(REPO_DIR, "test-artifacts/studio/07-pause-forms.png"), fullPage: true });
  }, 60_000);
});
