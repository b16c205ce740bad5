import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestProject } from "./cli-harness.js";
import { makeServiceProject, projectServer, spawnCli } from "./spawn-cli.js";

// `trellis run` goes through the server's run service: a thread run from the terminal has the same
// record, runs, graph binding and paused-input policy as one run over HTTP. Each test drives the real
// bin as a child process, then opens a server on the same SQLite file and looks through the API.

let project: TestProject;
beforeEach(() => {
  project = makeServiceProject();
});
afterEach(() => project.remove());

type Json = Record<string, unknown>;

/** GETs (or POSTs `body` to) `path` of a server on the project's file, and closes it. */
async function api(path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const server = await projectServer(project);
  try {
    const res = await server.app.request(
      path,
      body === undefined
        ? {}
        : { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } },
    );
    return { status: res.status, json: await res.json() };
  } finally {
    await server.close();
  }
}

async function runStatuses(threadId: string): Promise<string[]> {
  const runs = (await api(`/threads/${threadId}/runs`)).json as Json[];
  return runs.map((r) => r.status as string).sort();
}

describe("trellis run through the run service", () => {
  it("a thread run in the terminal is an API thread: its record, its search entry and its runs", async () => {
    const r = await spawnCli(project, ["run", "approval-flow", "--input", '{"request":"press"}', "--thread", "cli-a"], {
      answers: ["add PPE", "y"],
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("? Any changes to the draft? (text or JSON) › add PPE");
    expect(r.stdout).toContain("status: approved");

    const thread = await api("/threads/cli-a");
    expect(thread.status).toBe(200);
    expect(thread.json).toMatchObject({ thread_id: "cli-a", status: "idle", metadata: { graph_id: "approval-flow" } });
    const found = (await api("/threads/search", { metadata: { graph_id: "approval-flow" } })).json as Json[];
    expect(found.map((t) => t.thread_id)).toContain("cli-a");
    const runs = (await api("/threads/cli-a/runs")).json as Json[];
    // one run to the first pause, one per answer; all ended (none left running by the CLI), each a
    // success as LangGraph reports a run that reached a pause
    expect(runs.map((run) => run.status).sort()).toEqual(["success", "success", "success"]);
    expect(runs.every((run) => run.assistant_id === "approval-flow")).toBe(true);
    const state = (await api("/threads/cli-a/state")).json as { values: Json };
    expect(state.values).toMatchObject({ status: "approved", revisions: 1 });
  }, 60_000);

  it("continues a thread started over the API under the same record, as more runs of it", async () => {
    const server = await projectServer(project);
    try {
      const end = await server.runs.invoke({
        assistantId: "approval-flow",
        threadId: "api-1",
        as: "app",
        input: { request: "saw" },
      });
      expect(end.interrupts).toHaveLength(1);
    } finally {
      await server.close();
    }
    const r = await spawnCli(project, ["run", "approval-flow", "--thread", "api-1"], { answers: ["", "n"] });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("✓ write"); // continued at the pause, not started again
    expect(r.stdout).toContain("status: rejected");
    expect(await runStatuses("api-1")).toEqual(["success", "success", "success"]);
    expect((await api("/threads/api-1")).json).toMatchObject({ status: "idle" });
  }, 60_000);

  it("--thread of a thread bound to another graph exits 1 with the service's 409 message", async () => {
    const server = await projectServer(project);
    try {
      await server.runs.invoke({ assistantId: "bp-flow", threadId: "bp-1", as: "app", input: { text: "hi" } });
    } finally {
      await server.close();
    }
    for (const argv of [
      ["run", "approval-flow", "--thread", "bp-1", "--input", '{"request":"x"}'],
      ["run", "approval-flow", "--thread", "bp-1"],
    ]) {
      const r = await spawnCli(project, argv);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'Thread "bp-1" belongs to graph "bp-flow": run it with an assistant of that graph (assistant_id "bp-flow"',
      );
      expect(r.stderr).toContain("trellis run bp-flow --thread bp-1");
      expect(r.stdout).not.toContain("› "); // nothing asked about another graph's pause
    }
    expect(await runStatuses("bp-1")).toEqual(["success"]); // paused; nothing stored for the refused runs
  }, 60_000);

  it("input to a paused thread of a graph that rejects it is refused (exit 1), and the thread stays paused", async () => {
    const first = await spawnCli(project, ["run", "reject-flow", "--input", '{"topic":"locks"}', "--thread", "rj-1"]);
    expect(first.code).toBe(3);
    const refused = await spawnCli(project, ["run", "reject-flow", "--thread", "rj-1", "--input", '{"topic":"keys"}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Thread "rj-1" is waiting for an answer');
    expect(refused.stderr).toContain("Answer it with: trellis run reject-flow --thread rj-1");
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect((await api("/threads/rj-1")).json).toMatchObject({ status: "interrupted" });
    const answered = await spawnCli(project, ["run", "reject-flow", "--thread", "rj-1"], { answers: ["brass"] });
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain("? What about locks?");
    expect(answered.stdout).toContain("answer: brass");
    expect(await runStatuses("rj-1")).toEqual(["success", "success"]);
  }, 60_000);

  it("input the graph does not take is refused before any run is stored, and exits 1", async () => {
    const r = await spawnCli(project, ["run", "approval-flow", "--input", '{"nope":1}', "--thread", "bad-0"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nope/);
    expect((await api("/threads/bad-0/runs")).status).toBe(404);
  }, 60_000);

  it("a run that fails is a failed run of the thread, with its error, and exits 1", async () => {
    const r = await spawnCli(project, ["run", "fail-flow", "--input", '{"reason":"nope"}', "--thread", "bad-1"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/✗ The run failed: .*nope/);
    const runs = (await api("/threads/bad-1/runs")).json as Json[];
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "error", metadata: { source: "cli" } });
    expect(JSON.stringify(runs[0]?.error)).toContain("nope");
    expect((await api("/threads/bad-1")).json).toMatchObject({ status: "error" });
  }, 60_000);

  it("Ctrl+C during a run cancels it through the service: exit 3, the run ended, the thread not busy", async () => {
    let sent = false;
    const r = await spawnCli(project, ["run", "slow-flow", "--input", "{}", "--thread", "slow-1", "--json"], {
      onOutput(stdout, child) {
        if (!sent && stdout.includes('"node":"wait","status":"started"')) {
          sent = true;
          child.kill("SIGINT");
        }
      },
    });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(3);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Json);
    expect(events.at(-1)).toMatchObject({ event: "paused", thread: "slow-1", next: ["wait"] });
    expect(await runStatuses("slow-1")).toEqual(["interrupted"]);
    expect((await api("/threads/slow-1")).json).toMatchObject({ status: "interrupted" });
  }, 60_000);
});
