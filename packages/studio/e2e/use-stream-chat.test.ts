/**
 * A chat page built on LangGraph's `useStream` (React), bundled here with esbuild and served from
 * another origin, in headless Chromium against a Trellis server: the user's message (content blocks)
 * goes in, the agent's tool call is shown from `tool_calls`, the send waits for approval in LangChain's
 * human-in-the-loop shape, the Approve button resumes it with `submit({}, { command })`, and the answer
 * comes back. Screenshots go to test-artifacts/use-stream/.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_FLAGS, findChromium, freePort, REPO_DIR, type ServeChild, startServe } from "./studio-server.js";

const executablePath = findChromium();
const inCi = Boolean(process.env.CI);
const ARTIFACTS = join(REPO_DIR, "test-artifacts/use-stream");

describe.runIf(executablePath || inCi)("a useStream chat page in headless Chromium", () => {
  let dir: string;
  let serve: ServeChild | undefined;
  let page: Page;
  let context: BrowserContext | undefined;
  let site: Server | undefined;
  let siteUrl: string;

  beforeAll(async () => {
    if (!executablePath) throw new Error("chromium is missing: apt-get install -y chromium (.ci/run does this)");
    dir = mkdtempSync(join(tmpdir(), "trellis-use-stream-"));
    mkdirSync(ARTIFACTS, { recursive: true });
    const bundle = await build({
      entryPoints: [join(REPO_DIR, "packages/studio/e2e/chat-page/chat-page.ts")],
      bundle: true,
      format: "esm",
      write: false,
      platform: "browser",
      define: { "process.env.NODE_ENV": '"production"' },
      logLevel: "silent",
    });
    const script = bundle.outputFiles[0]?.text ?? "";
    const html = `<!doctype html><html><body><div id="root"></div><script type="module" src="/chat.js"></script></body></html>`;
    site = createServer((req, res) => {
      const js = req.url?.startsWith("/chat.js");
      res.writeHead(200, { "content-type": js ? "text/javascript" : "text/html" });
      res.end(js ? script : html);
    });
    await new Promise<void>((done) => site?.listen(0, "127.0.0.1", done));
    siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
    const port = await freePort();
    serve = await startServe(join(dir, "server"), join(dir, "no-studio"), port, {
      "email-agent": { module: join(REPO_DIR, "packages/studio/e2e/chat-page/email-agent.ts"), graph: "emailAgent" },
    });
    context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1000, height: 800 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(20_000);
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    await serve?.stop();
    await new Promise<void>((done) => (site ? site.close(() => done()) : done()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends a message, shows the tool call, waits for approval, and answers once approved", async () => {
    await page.goto(`${siteUrl}/?api=${encodeURIComponent(serve?.url ?? "")}`);
    await page.fill("#draft", "please mail Ana");
    await page.click("#send");
    await page.waitForSelector(".review .action");
    expect(await page.textContent(".review .action")).toContain('send_email → {"to":"Ana@example.com"');
    // the user's message renders as the human's (LangChain type), the agent's call from tool_calls
    expect(await page.getAttribute(".msg >> nth=0", "data-type")).toBe("human");
    expect(await page.textContent(".msg >> nth=0")).toBe("please mail Ana");
    expect(await page.textContent(".tool-call")).toContain("send_email");
    await page.screenshot({ path: join(ARTIFACTS, "1-review.png") });
    await page.click("#approve");
    await page.waitForSelector('.msg[data-type="ai"] >> text=Email sent to Ana@example.com.');
    await page.waitForSelector(".review", { state: "detached" });
    await page.screenshot({ path: join(ARTIFACTS, "2-answered.png") });
    const types = await page.$$eval(".msg", (els) => els.map((e) => e.getAttribute("data-type")));
    expect(types).toEqual(["human", "ai", "tool", "ai"]);
  });
});
