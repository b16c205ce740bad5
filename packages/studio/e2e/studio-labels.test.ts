/**
 * Issue 37's studio defects in headless Chromium: a self-loop (twi-author's `review → review`) is a
 * loop on its node; the run timeline draws a task's model call inside the task; a pause raised inside
 * `review` says "in review" and a breakpoint "before publish"; a paused run and thread say "paused".
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_DIR, STUDIO_DIR } from "./studio-server.js";
import { ARTIFACTS, browserTestsRun, studioInBrowser } from "./studio-session.js";

const GRAPHS = {
  "twi-author": {
    module: join(REPO_DIR, "apps/twi-author/src/index.ts"),
    graph: "twiAuthorGraph",
    routes: "twiAuthorRoutes",
  },
  "slow-reader": { module: join(STUDIO_DIR, "e2e/slow-reader.ts"), graph: "slowReaderGraph" },
};

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The self-loop's ends and box and its node's box, in page pixels (a script run in the page). */
const LOOP_GEOMETRY = `(() => {
  const path = document.querySelector('[data-edge="review->review"] path');
  const rect = document.querySelector('[data-node="review"] rect').getBoundingClientRect();
  const m = path.getScreenCTM();
  const at = (l) => { const p = path.getPointAtLength(l); return { x: p.x * m.a + m.e, y: p.y * m.d + m.f }; };
  const box = path.getBoundingClientRect();
  return {
    start: at(0),
    end: at(path.getTotalLength()),
    node: { left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom },
    loop: { left: box.left, right: box.right, top: box.top, bottom: box.bottom },
  };
})()`;

const barBox = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const r = (el as unknown as { getBoundingClientRect(): Box }).getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    });

/** The studio's words for a paused thread: where it waits, the thread's status, the run's end. */
const labels = async (page: Page) => ({
  place: await page.getByTestId("pause-place").textContent(),
  thread: await page.getByTestId("thread-status").textContent(),
  runEnd: (await page.getByTestId("run-end").count()) > 0 ? await page.getByTestId("run-end").textContent() : null,
  run: await page.getByTestId("waterfall-status").textContent(),
});

describe.runIf(browserTestsRun("the studio labels test"))("the studio's drawing and labels (issue 37)", () => {
  const studio = studioInBrowser("labels", GRAPHS);
  let page: Page;
  beforeAll(() => {
    page = studio.page;
  });

  it("draws twi-author's review → review edge as a loop on the review node", async () => {
    await page.goto(`${studio.url}/studio/#/graph/twi-author`);
    await page.locator('[data-edge="review->review"] path').waitFor();
    const g = (await page.evaluate(LOOP_GEOMETRY)) as {
      start: { x: number; y: number };
      end: { x: number; y: number };
      node: Box;
      loop: Box;
    };
    await page.screenshot({ path: join(ARTIFACTS, "20-self-loop.png"), fullPage: true });
    for (const p of [g.start, g.end]) {
      // both ends on the node's right side
      expect(Math.abs(p.x - g.node.right)).toBeLessThan(2);
      expect(p.y).toBeGreaterThan(g.node.top);
      expect(p.y).toBeLessThan(g.node.bottom);
    }
    // the loop hugs the node: it starts at its side and reaches out a little, level with it
    expect(g.loop.left).toBeGreaterThan(g.node.right - 2);
    expect(g.loop.right - g.node.right).toBeLessThan(60);
    expect(g.loop.top).toBeGreaterThan(g.node.top - 20);
    expect(g.loop.bottom).toBeLessThan(g.node.bottom + 20);
    // its label sits beside the loop, not over another node
    const label = await barBox(page, '[data-edge="review->review"] text');
    expect(label.left).toBeGreaterThan(g.loop.right - 2);
  }, 60_000);

  it("says where a pause inside review waits, and calls the paused run and thread paused", async () => {
    await page.goto(`${studio.url}/studio/#/graph/twi-author`);
    await page.getByTestId("start-run").click();
    await page.getByTestId("review-form").waitFor();
    // the run's timeline shows once the run has ended
    await page.getByTestId("waterfall-status").waitFor();
    expect(await labels(page)).toEqual({
      place: "in review",
      thread: "paused",
      runEnd: "Run paused: waiting for you.",
      run: "paused",
    });
    await page.screenshot({ path: join(ARTIFACTS, "21-paused-in-review.png"), fullPage: true });
  }, 60_000);

  it("draws a task's model call inside its task, and a breakpoint pause says before which node", async () => {
    const thread = (await (await fetch(`${studio.url}/threads`, { method: "POST", body: "{}" })).json()) as {
      thread_id: string;
    };
    const wait = await fetch(`${studio.url}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "slow-reader", input: { topic: "ladders" } }),
    });
    expect(wait.status).toBe(200);
    await page.goto(`${studio.url}/studio/#/thread/${thread.thread_id}`);
    await page.getByTestId("waterfall-call").first().waitFor();
    const task = await barBox(page, '[data-testid="waterfall-row"][data-node="draft"] .waterfall-bar');
    const call = await barBox(page, '[data-testid="waterfall-call"] .waterfall-bar');
    await page.screenshot({ path: join(ARTIFACTS, "22-waterfall.png"), fullPage: true });
    // the call starts after its task started and ends before it ended (half a pixel of rounding)
    expect(call.left).toBeGreaterThanOrEqual(task.left - 0.5);
    expect(call.right).toBeLessThanOrEqual(task.right + 0.5);
    const { place, thread: threadLabel, run } = await labels(page);
    expect({ place, thread: threadLabel, run }).toEqual({ place: "before publish", thread: "paused", run: "paused" });
  }, 60_000);
});
