/**
 * Issue 21 in headless Chromium: the run form builds a field for each typed input key of the graph's
 * schema (twi-author declares its keys with zod) — a choice for an enum, a number box with the
 * schema's bounds — refuses a value out of bounds before a thread is made, and starts the run with the
 * chosen values; a value only the server's schema refuses shows its 400 naming the key.
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
      "!! SKIPPING the studio run-form browser test: Debian's chromium is not installed.\n" +
      "!! Install it with: apt-get update && apt-get install -y chromium\n" +
      "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n",
  );
}

const ARTIFACTS = join(REPO_DIR, "test-artifacts/studio");

describe.runIf(executablePath || inCi)("the studio's run form, built from the graph's schema", () => {
  let dir: string;
  let serve: ServeChild | undefined;
  let context: BrowserContext | undefined;
  let page: Page;

  beforeAll(async () => {
    if (!executablePath) throw new Error("chromium is missing: apt-get install -y chromium (.ci/run does this)");
    dir = mkdtempSync(join(tmpdir(), "trellis-studio-form-"));
    mkdirSync(ARTIFACTS, { recursive: true });
    const port = await freePort();
    const studioDir = join(dir, "studio");
    await buildStudio(studioDir);
    serve = await startServe(join(dir, "server"), studioDir, port);
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

  it("shows typed fields, refuses an out-of-bounds value, and starts the run with the chosen ones", async () => {
    await page.goto(`${serve?.url}/studio/#/graph/twi-author`);
    const fields = page.getByTestId("schema-fields");
    await fields.waitFor();
    const channel = page.getByTestId("field-channel");
    expect(await channel.evaluate((el) => el.tagName)).toBe("SELECT");
    expect(await channel.locator("option").allTextContents()).toEqual(["—", "msteams", "telegram", "cli"]);
    expect(await channel.inputValue()).toBe("cli");
    const count = page.getByTestId("field-revision_count");
    expect(await count.getAttribute("type")).toBe("number");
    expect(await count.getAttribute("min")).toBe("0");
    expect(await count.inputValue()).toBe("0");
    // a nullable key is a text box that may stay empty
    expect(await page.getByTestId("field-revision_feedback").inputValue()).toBe("");
    // the typed keys are fields; the JSON keeps the others
    const json = JSON.parse(await page.getByTestId("run-input").inputValue()) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(["conversation_id", "messages"]);
    await page.screenshot({ path: join(ARTIFACTS, "06-run-form.png"), fullPage: true });

    await count.fill("-1");
    await page.getByTestId("start-run").click();
    await page.getByText("revision_count must be 0 or more.").waitFor();
    expect(page.url()).toContain("#/graph/twi-author");

    await count.fill("0");
    await channel.selectOption("telegram");
    await page.getByTestId("start-run").click();
    await page.getByTestId("review-form").waitFor();
    const threadId = page.url().split("#/thread/")[1] as string;
    expect(await state(threadId)).toMatchObject({ channel: "telegram", revision_count: 0 });
  }, 60_000);

  it("a value only the server's schema refuses shows its 400 naming the key, and nothing runs", async () => {
    await page.goto(`${serve?.url}/studio/#/graph/twi-author`);
    await page.getByTestId("schema-fields").waitFor();
    await page.getByTestId("field-message").fill("   ");
    await page.getByTestId("start-run").click();
    const log = page.getByTestId("run-log");
    await log.getByText(/state key "message"/).waitFor();
    expect(await log.textContent()).toContain("must be the request as text");
    const threadId = page.url().split("#/thread/")[1] as string;
    expect((await state(threadId)).draft ?? null).toBeNull();
  }, 60_000);
});
