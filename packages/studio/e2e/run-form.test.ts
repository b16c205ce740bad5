/**
 * Issue 21 in headless Chromium: the run form builds a field for each typed input key of the graph's
 * input schema (twi-author declares its keys with zod, and which of them are inputs; issue 37) — a choice for an enum, a number box with the
 * schema's bounds — refuses a value out of bounds before a thread is made, and starts the run with the
 * chosen values; a value only the server's schema refuses shows its 400 naming the key.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, browserTestsRun, studioInBrowser } from "./studio-session.js";

describe.runIf(browserTestsRun("the studio run-form test"))(
  "the studio's run form, built from the graph's schema",
  () => {
    const studio = studioInBrowser("form");
    let page: Page;
    beforeAll(() => {
      page = studio.page;
    });

    const state = async (threadId: string) =>
      ((await (await fetch(`${studio.url}/threads/${threadId}/state`)).json()) as { values: Record<string, unknown> })
        .values;

    it("shows typed fields, refuses an out-of-bounds value, and starts the run with the chosen ones", async () => {
      await page.goto(`${studio.url}/studio/#/graph/twi-author`);
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
      // only the graph's input keys are offered: not its working keys (issue 37)
      for (const key of ["status", "draft", "revision_feedback", "intent", "approved_draft"]) {
        expect(await page.getByTestId(`field-${key}`).count()).toBe(0);
      }
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
      await page.goto(`${studio.url}/studio/#/graph/twi-author`);
      await page.getByTestId("schema-fields").waitFor();
      await page.getByTestId("field-message").fill("   ");
      await page.getByTestId("start-run").click();
      const log = page.getByTestId("run-log");
      await log.getByText(/state key "message"/).waitFor();
      expect(await log.textContent()).toContain("must be the request as text");
      const threadId = page.url().split("#/thread/")[1] as string;
      expect((await state(threadId)).draft ?? null).toBeNull();
    }, 60_000);
  },
);
