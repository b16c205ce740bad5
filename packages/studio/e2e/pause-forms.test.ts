/**
 * The interrupt panel in headless Chromium draws a declared pause from `@trellis/protocol` the way the
 * CLI asks it: a `form` (JSON Schema) field by field, refusing a value that does not fit its type, then
 * LangChain's HITL review with its allowed decisions only. The graph is the CLI's `pauseKindsGraph`
 * fixture, so both doors answer the same pauses.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_DIR } from "./studio-server.js";
import { browserTestsRun, studioInBrowser } from "./studio-session.js";

describe.runIf(browserTestsRun("the studio pause-forms test"))(
  "declared pauses in the studio's interrupt panel",
  () => {
    const studio = studioInBrowser(
      "pauses",
      {
        "pause-kinds": { module: join(REPO_DIR, "packages/cli/src/test/fixture-graphs.ts"), graph: "pauseKindsGraph" },
      },
      90_000,
    );
    let page: Page;
    beforeAll(() => {
      page = studio.page;
    });

    const state = async (threadId: string) =>
      ((await (await fetch(`${studio.url}/threads/${threadId}/state`)).json()) as { values: Record<string, unknown> })
        .values;

    it("answers a JSON-Schema form, then a HITL review, with what the graph declared", async () => {
      await page.goto(`${studio.url}/studio/#/graph/pause-kinds`);
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
  },
);
