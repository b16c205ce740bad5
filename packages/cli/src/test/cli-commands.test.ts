import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXIT_PAUSED } from "../commands/run.js";
import { makeProject, runCli, type TestProject } from "./cli-harness.js";

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(() => project.remove());

describe("trellis draw", () => {
  it("prints the Mermaid flowchart of a graph of trellis.json", async () => {
    const r = await runCli(project, ["draw", "approval-flow"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("graph TD");
    expect(r.stdout).toContain("write --> review");
    expect(r.stdout).toContain("approve --> END");
  });

  it("--json prints nodes and edges", async () => {
    const r = await runCli(project, ["draw", "approval-flow", "--json"]);
    const drawing = JSON.parse(r.stdout) as { nodes: Array<{ id: string }> };
    expect(drawing.nodes.map((n) => n.id)).toContain("review");
  });

  it("names the graphs there are when the graph is unknown (exit 1)", async () => {
    const r = await runCli(project, ["draw", "aproval-flow"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/No graph "aproval-flow" .* Graphs: approval-flow, bp-flow\./);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe("trellis run", () => {
  it("shows each interrupt's payload, reads the answers from stdin and resumes to the end", async () => {
    const r = await runCli(
      project,
      ["run", "approval-flow", "--input", '{"request":"lockout"}', "--thread", "t1"],
      "add PPE\ny\n",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("✓ write");
    expect(r.stdout).toContain("review is waiting for an answer");
    expect(r.stdout).toContain("question: Any changes to the draft?");
    expect(r.stdout).toContain("? Publish this? (y/n)");
    expect(r.stdout).toContain("✔ Done · thread t1");
    expect(r.stdout).toContain("status: approved");
    expect(r.stdout).toContain("(add PPE)");
  });

  it("a yes/no question takes n as false", async () => {
    const r = await runCli(project, ["run", "approval-flow", "--input", '{"request":"x"}'], "\nn\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("status: rejected");
  });

  it("leaves the thread paused when stdin ends (exit 3), and --thread resumes it later", async () => {
    const first = await runCli(project, ["run", "approval-flow", "--input", '{"request":"x"}', "--thread", "t2"], "");
    expect(first.code).toBe(EXIT_PAUSED);
    expect(first.stdout).toContain("stays paused before review");
    expect(first.stdout).toContain("trellis run approval-flow --thread t2");
    const second = await runCli(project, ["run", "approval-flow", "--thread", "t2"], "tighter\nyes\n");
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain("✓ write"); // the draft was not written again
    expect(second.stdout).toContain("status: approved");
  });

  it("--json writes one event per line for scripts", async () => {
    const r = await runCli(project, ["run", "approval-flow", "--input", '{"request":"x"}', "--json"], '"note"\ntrue\n');
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { event: string; [k: string]: unknown });
    expect(events[0]).toMatchObject({ event: "run", graph: "approval-flow" });
    expect(events.filter((e) => e.event === "interrupt").map((e) => e.answer)).toEqual(["text", "approve"]);
    expect(events.some((e) => e.event === "node" && e.node === "write" && e.status === "done")).toBe(true);
    expect(events.at(-1)).toMatchObject({ event: "done", values: { status: "approved", revisions: 1 } });
  });

  it("at a breakpoint takes a JSON state update, then continues", async () => {
    const r = await runCli(project, ["run", "bp-flow", "--input", '{"text":"hi"}'], 'nope\n{"note":"checked"}\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Paused before publish");
    expect(r.stdout).toContain("not an answer here");
    expect(r.stdout).toContain("note: checked");
    expect(r.stdout).toContain("published: true");
  });

  it("says what is wrong with --input (exit 2)", async () => {
    const r = await runCli(project, ["run", "approval-flow", "--input", "{request:x}"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--input is not valid JSON");
  });

  it("reports a failing node in plain words (exit 1)", async () => {
    const r = await runCli(project, ["run", "approval-flow", "--input", '{"nope":1}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nope/);
  });
});

describe("trellis threads and state", () => {
  it("lists threads run from the terminal with their status, and shows state and history", async () => {
    await runCli(project, ["run", "approval-flow", "--input", '{"request":"a"}', "--thread", "done-1"], "\ny\n");
    await runCli(project, ["run", "approval-flow", "--input", '{"request":"b"}', "--thread", "paused-1"], "");
    const list = await runCli(project, ["threads"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/THREAD\s+GRAPH\s+STATUS/);
    expect(list.stdout).toMatch(/paused-1\s+approval-flow\s+interrupted/);
    expect(list.stdout).toMatch(/done-1\s+approval-flow\s+idle/);
    const json = JSON.parse((await runCli(project, ["threads", "--json"])).stdout) as Array<{ thread_id: string }>;
    expect(json.map((t) => t.thread_id).sort()).toEqual(["done-1", "paused-1"]);

    const state = await runCli(project, ["state", "paused-1"]);
    expect(state.code).toBe(0);
    expect(state.stdout).toContain("next: review");
    expect(state.stdout).toMatch(/interrupt \S+ at review: \{"question":"Any changes to the draft\?"/);
    const history = await runCli(project, ["state", "done-1", "--history"]);
    expect(history.stdout.trim().split("\n")).toHaveLength(4);
    expect(history.stdout).toMatch(/step -1 {2}input/);
    const full = JSON.parse((await runCli(project, ["state", "done-1", "--json"])).stdout) as { values: unknown };
    expect(full.values).toMatchObject({ status: "approved" });
  });

  it("explains an unknown thread and an empty store", async () => {
    expect((await runCli(project, ["threads"])).stdout).toContain("No threads yet");
    const r = await runCli(project, ["state", "ghost"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('No thread "ghost"');
  });
});

describe("command line", () => {
  it("prints help, and rejects unknown commands and options with exit 2", async () => {
    expect((await runCli(project, ["--help"])).stdout).toContain("Usage: trellis <command>");
    const unknown = await runCli(project, ["serv"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "serv"');
    const badFlag = await runCli(project, ["draw", "approval-flow", "--colour"]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("unknown option --colour");
  });

  it("says where it looked for a missing config", async () => {
    const r = await runCli(project, ["draw", "x", "--config", "missing.json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("No config at");
  });

  it("reports an invalid config in plain words", async () => {
    writeFileSync(project.config, "{ not json");
    const r = await runCli(project, ["threads"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not valid JSON");
    expect(readFileSync(project.config, "utf8")).toBe("{ not json");
  });
});
