import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeProject, REPO_DIR, type TestProject } from "./cli-harness.js";
import { projectServer, spawnCli } from "./spawn-cli.js";

// Issue 21: `trellis run <graph> key=value …` reads each value as its key's type in the graph's input
// schema and refuses what does not fit with a usage error naming the key; input the schema refuses in
// --input is the run service's 400, said with what to do, and nothing is stored. Drives the real bin.

let project: TestProject;
beforeEach(() => {
  project = makeProject();
  const config = JSON.parse(readFileSync(project.config, "utf8")) as { graphs: Record<string, unknown> };
  config.graphs.typed = { module: join(REPO_DIR, "packages/server/src/test/fixture-typed.ts"), graph: "typedGraph" };
  writeFileSync(project.config, JSON.stringify(config));
});
afterEach(() => project.remove());

async function threadState(threadId: string): Promise<{ status: number; values?: Record<string, unknown> }> {
  const server = await projectServer(project);
  try {
    const res = await server.app.request(`/threads/${threadId}/state`);
    return { status: res.status, ...((res.status === 200 ? await res.json() : {}) as object) };
  } finally {
    await server.close();
  }
}

describe("trellis run key=value, read through the graph's schema", () => {
  it("each value is read as its key's type: an integer, an enum value, text", async () => {
    const r = await spawnCli(
      project,
      ["run", "typed", "topic=ladders", "channel=slack", "revisions=2", "--thread", "k1"],
      {
        answers: ['{"approved": true}'],
      },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect((await threadState("k1")).values).toMatchObject({
      topic: "ladders",
      channel: "slack",
      revisions: 2,
      approved: true,
    });
  }, 60_000);

  it.each([
    [["channel=whatsapp"], 'channel=whatsapp: "channel" takes one of "teams", "slack".'],
    [["revisions=abc"], 'revisions=abc: "revisions" takes a whole number ≥ 0.'],
    [["colour=red"], '"colour" is not an input of this graph. Its keys: topic, channel, revisions, approved.'],
    [["topic"], '"topic" is not a key=value pair.'],
  ])(
    "%j is a usage error naming the key (exit 2), before any thread is made",
    async (fields, message) => {
      const r = await spawnCli(project, ["run", "typed", ...fields, "--thread", "k2"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect((await threadState("k2")).status).toBe(404);
    },
    60_000,
  );

  it("--input that breaks the schema is refused by the run service: the key, what to do, nothing stored", async () => {
    const r = await spawnCli(project, ["run", "typed", "--input", '{"revisions":"abc"}', "--thread", "k3"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/state key "revisions" to "0abc".*expected an integer ≥ 0/);
    expect(r.stderr).toContain("Nothing was written.");
    expect((await threadState("k3")).status).toBe(404);
  }, 60_000);

  it("an answer the paused node's resumeSchema refuses is said, and the question asked again", async () => {
    const r = await spawnCli(project, ["run", "typed", "topic=x", "--thread", "k4"], {
      answers: ['{"approved": "yes"}', '{"approved": true}'],
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/✗ .*approved must be true or false[^\n]*\n.*\? Your answer/s);
    expect(r.stdout.split("? Your answer").length - 1).toBe(2);
    expect((await threadState("k4")).values).toMatchObject({ approved: true });
  }, 60_000);
});
