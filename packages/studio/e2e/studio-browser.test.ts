/**
 * The studio in headless Chromium (Debian's package, driven by playwright-core; no browser download):
 * open the studio, start twi-author, reach the review pause (a HITL request in the generic review
 * form), request a revision (reject with a message), approve twice, and see
 * the run complete with a working PDF link. Screenshots go to test-artifacts/studio/.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, browserTestsRun, studioInBrowser } from "./studio-session.js";

/** The few browser globals the page scripts below use (this file compiles without the DOM lib). */
interface BrowserGlobals {
  document: { querySelector(selector: string): { value: string; dispatchEvent(event: unknown): boolean } | null };
  Event: new (type: string, init?: { bubbles?: boolean }) => unknown;
  requestAnimationFrame(callback: () => void): number;
}

describe.runIf(browserTestsRun("the studio browser test"))("studio in headless Chromium", () => {
  const studio = studioInBrowser("e2e", undefined, 60_000);
  let page: Page;
  beforeAll(() => {
    page = studio.page;
  });

  it("starts twi-author, requests a revision, approves, and links the PDF", async () => {
    const url = studio.url;
    await page.goto(`${url}/studio/`);
    await page.getByTestId("graph-link-twi-author").click();
    await page.locator('[data-testid="graph-drawing"] [data-node="review"]').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, "01-graph.png"), fullPage: true });

    await page.getByTestId("start-run").click();
    // twi-author's pauses are LangChain HITL requests: the studio's generic review form answers them,
    // with no knowledge of the app's state keys (a revision is a reject with a message, as the app says)
    const review = page.getByTestId("review-form");
    await review.waitFor();
    expect(page.url()).toContain("#/thread/");
    await expect.poll(() => page.locator('[data-node="review"]').first().getAttribute("class")).toContain("paused");
    expect(await review.textContent()).toContain("(0. változat)");
    await page.screenshot({ path: join(ARTIFACTS, "02-review.png"), fullPage: true });

    await page.getByTestId("review-message").fill("Add: safety goggles are mandatory");
    await review.getByRole("button", { name: "Reject" }).click();
    await page.getByText("(1. változat)").first().waitFor();
    expect(await page.getByTestId("review-form").textContent()).toContain("safety goggles are mandatory");
    await page.screenshot({ path: join(ARTIFACTS, "03-revised.png"), fullPage: true });

    await page.getByTestId("review-form").getByRole("button", { name: "Approve" }).click();
    const final = page.getByTestId("review-form").filter({ hasText: "Végső jóváhagyás" });
    await final.waitFor();
    await final.getByRole("button", { name: "Approve" }).click();

    const link = page.getByTestId("document-link");
    await link.waitFor();
    await expect.poll(() => page.getByTestId("thread-status").textContent()).toBe("idle");
    await page.screenshot({ path: join(ARTIFACTS, "04-done.png"), fullPage: true });
    const href = (await link.getAttribute("href")) as string;
    expect(href).toMatch(/\/apps\/twi-author\/blobs\/.+\.pdf\?/);
    const pdf = await fetch(href);
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    // the timeline shows the run's checkpoints, including the two state updates of the decisions
    expect(await page.getByTestId("timeline").locator("li").count()).toBeGreaterThan(8);
    // what the model calls of the thread's runs used (twi-author's offline model reports its tokens)
    await expect
      .poll(() => page.getByTestId("model-usage").textContent())
      .toMatch(/Model usage[\d,]+ tokens \([\d,]+ in · [\d,]+ out\) in \d+ model calls? over \d+ runs?/);
  }, 60_000);

  it("answers approval-flow's questions, then forks from an edited checkpoint", async () => {
    const url = studio.url;
    await page.goto(`${url}/studio/#/graph/approval-flow`);
    await page.getByTestId("start-run").click();
    const panel = page.getByTestId("interrupt-panel");
    await panel.getByText("Any changes to the draft?").first().waitFor();
    await page.getByTestId("answer-text").fill("add PPE");
    await page.getByTestId("answer-send").click();
    await panel.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => page.getByTestId("thread-status").textContent()).toBe("idle");
    expect(await page.getByTestId("run-log").textContent()).toContain("approve");

    // the waterfall of the thread's latest run: one row per task of the run's metadata.timeline, in order
    const threadId = decodeURIComponent(page.url().split("#/thread/")[1] ?? "");
    const runs = (await (await fetch(`${url}/threads/${threadId}/runs`)).json()) as Array<{
      run_id: string;
      created_at: string;
      metadata: { timeline?: { tasks: Array<{ node: string }> } };
    }>;
    const latest = runs.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0];
    const nodes = latest?.metadata.timeline?.tasks.map((t) => t.node) ?? [];
    expect(nodes.length).toBeGreaterThan(0);
    const rows = page.getByTestId("waterfall").getByTestId("waterfall-row");
    await expect.poll(() => rows.count()).toBe(nodes.length);
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-node")))).toEqual(nodes);
    expect(await rows.first().textContent()).toMatch(/\d+(\.\d+)? m?s/);
    // the thread's first run (to the first question) picked instead: its own tasks
    const first = runs.at(-1);
    const firstNodes = first?.metadata.timeline?.tasks.map((t) => t.node) ?? [];
    await page.getByTestId("waterfall-run").selectOption(first?.run_id ?? "");
    await expect.poll(() => rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-node")))).toEqual(firstNodes);
    await page.getByTestId("waterfall").screenshot({ path: join(ARTIFACTS, "05-waterfall.png") });

    // time travel: open the checkpoint after `write`, change the draft once — the moment the editor is
    // there, before the browser has painted it — and fork from there. Nothing the page does after the
    // editor opened (its first effects, a refresh of the thread) may put back what was typed over.
    const timeline = page.getByTestId("timeline");
    await timeline.getByRole("button", { name: /step 0/ }).evaluate(
      (button, draft) =>
        new Promise<void>((done) => {
          const page = globalThis as unknown as BrowserGlobals;
          (button as unknown as { click(): void }).click();
          const type = () => {
            const area = page.document.querySelector('[data-testid="checkpoint-editor"] textarea');
            if (!area) return void setTimeout(type, 0);
            area.value = JSON.stringify({ ...JSON.parse(area.value), draft }, null, 2);
            area.dispatchEvent(new page.Event("input", { bubbles: true }));
            done();
          };
          setTimeout(type, 0);
        }),
      "FORKED DRAFT",
    );
    // a few frames later (the editor's effects have run), the edit is still there
    await page.evaluate(() => {
      const frame = (globalThis as unknown as BrowserGlobals).requestAnimationFrame;
      return new Promise((done) => frame(() => frame(() => setTimeout(done, 50))));
    });
    const editor = page.getByTestId("checkpoint-editor");
    expect(await editor.locator("textarea").inputValue()).toContain("FORKED DRAFT");
    await editor.getByRole("button", { name: "Fork and run from here" }).click();
    await panel.getByText("FORKED DRAFT").first().waitFor();
    await expect.poll(() => timeline.locator(".source-update").count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, "06-fork.png"), fullPage: true });
  }, 30_000);

  it("draws a ReAct agent's model and tool calls under their tasks, with durations and tokens", async () => {
    const url = studio.url;
    const post = async (path: string, body: unknown) =>
      (await fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json())) as Record<string, unknown>;
    const threadId = (await post("/threads", {})).thread_id as string;
    await post(`/threads/${threadId}/runs/wait`, {
      assistant_id: "weather-agent",
      input: { messages: [{ role: "user", content: "What is the weather in Paris?" }] },
    });
    // over HTTP first: the run's timeline nests the calls under the tasks that made them
    type Call = {
      kind: string;
      model?: string;
      tool?: string;
      input_tokens?: number;
      output_tokens?: number;
      total_tokens?: number;
      status?: string;
      finish_reason?: string;
    };
    const [run] = (await (await fetch(`${url}/threads/${threadId}/runs`)).json()) as Array<{
      metadata: {
        timeline: { tasks: Array<{ node: string; calls?: Call[] }> };
        usage: { input_tokens: number; output_tokens: number; total_tokens: number };
      };
    }>;
    const tasks = run?.metadata.timeline.tasks ?? [];
    expect(tasks.map((t) => [t.node, (t.calls ?? []).map((c) => c.model ?? c.tool)])).toEqual([
      ["agent", ["weather-rules"]],
      ["tools", ["get_weather"]],
      ["agent", ["weather-rules"]],
    ]);
    const models = tasks.flatMap((t) => t.calls ?? []).filter((c) => c.kind === "model");
    expect(models.reduce((n, c) => n + (c.total_tokens ?? 0), 0)).toBe(run?.metadata.usage.total_tokens);

    // the studio draws a row per call under its task's row: the model with its tokens, the tool with its end
    await page.goto(`${url}/studio/#/thread/${encodeURIComponent(threadId)}`);
    const waterfall = page.getByTestId("waterfall");
    const rows = waterfall.locator('[data-testid="waterfall-row"], [data-testid="waterfall-call"]');
    await expect.poll(() => rows.count()).toBe(6);
    const drawn = await rows.evaluateAll((els) =>
      els.map((e) => `${e.getAttribute("data-testid")} ${e.getAttribute("data-node") ?? e.getAttribute("data-kind")}`),
    );
    expect(drawn).toEqual([
      "waterfall-row agent",
      "waterfall-call model",
      "waterfall-row tools",
      "waterfall-call tool",
      "waterfall-row agent",
      "waterfall-call model",
    ]);
    const texts = await waterfall.getByTestId("waterfall-call").allTextContents();
    const n = (x: number | undefined) => (x ?? 0).toLocaleString("en-US");
    const [ask, answer] = models;
    expect(texts[0]).toContain("model rules:weather-rules");
    expect(texts[0]).toMatch(/\d+ ms/);
    expect(texts[0]).toContain(`${n(ask?.input_tokens)} in · ${n(ask?.output_tokens)} out · tool_calls`);
    expect(texts[1]).toContain("tool get_weather");
    expect(texts[1]).toMatch(/\d+ ms/);
    expect(texts[1]).not.toContain("failed");
    expect(texts[2]).toContain(`${n(answer?.input_tokens)} in · ${n(answer?.output_tokens)} out · stop`);
    // the task's row carries its model call's tokens
    expect(await waterfall.getByTestId("waterfall-row").first().textContent()).toContain(`${n(ask?.total_tokens)} tok`);
    await waterfall.screenshot({ path: join(ARTIFACTS, "07-waterfall-calls.png") });
  }, 30_000);
});
