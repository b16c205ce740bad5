/**
 * `trellis run` asks each declared pause kind the way `@trellis/protocol` reads it: a form field by
 * field (typed by its JSON Schema, asked again when a field does not fit), and LangChain's HITL request
 * as approve / reject [message], answered with `{ decisions }`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeProject, REPO_DIR, runCli, type TestProject } from "./cli-harness.js";

let project: TestProject;
beforeEach(() => {
  project = makeProject();
  writeFileSync(
    project.config,
    JSON.stringify({
      graphs: {
        "pause-kinds": { module: join(REPO_DIR, "packages/cli/src/test/fixture-graphs.ts"), graph: "pauseKindsGraph" },
      },
      saver: { kind: "sqlite", path: "trellis.sqlite" },
    }),
  );
});
afterEach(() => project.remove());

describe("trellis run with declared pauses", () => {
  it("asks a form's fields, re-asks on a bad field, and answers a HITL review with decisions", async () => {
    const r = await runCli(
      project,
      ["run", "pause-kinds", "--input", '{"topic":"cooling"}', "--thread", "k1"],
      // the form: visits "two" is refused, then asked again; then the review: reject with a message
      "Hoofdstraat 2\ntwo\nHoofdstraat 2\n3\nreject needs photos\n",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("? Address (string)");
    expect(r.stdout).toContain("visits must be a whole number.");
    expect(r.stdout).toContain("? File the report? (approve | reject [message])");
    expect(r.stdout).toContain('site: {"address":"Hoofdstraat 2","visits":3}');
    expect(r.stdout).toContain('verdict: {"decisions":[{"type":"reject","message":"needs photos"}]}');
  });

  it("--json names each pause by its kind", async () => {
    const r = await runCli(project, ["run", "pause-kinds", "--input", "{}", "--json"], "a\n\napprove\n");
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { event: string; answer?: unknown });
    expect(events.filter((e) => e.event === "interrupt").map((e) => e.answer)).toEqual(["form", "review"]);
    expect(events.at(-1)).toMatchObject({ event: "done", values: { verdict: { decisions: [{ type: "approve" }] } } });
  });
});
