import { describe, expect, it } from "vitest";
import type { SseEvent } from "./api-types.js";
import { emptyLog, reduceEvent } from "./run-log.js";

const ev = (event: string, data: unknown): SseEvent => ({ id: undefined, event, data });

describe("reduceEvent", () => {
  it("tracks the running node, visited nodes, tokens, updates and the end", () => {
    const events = [
      ev("metadata", { run_id: "r1" }),
      ev("debug", { type: "task", node: "agent", step: 0, taskId: "t" }),
      ev("messages", [{ type: "AIMessageChunk", content: "Hel" }, { langgraph_node: "agent" }]),
      ev("messages", [{ type: "AIMessageChunk", content: "lo" }, { langgraph_node: "agent" }]),
      ev("updates", { agent: { messages: [], count: 1 } }),
      ev("debug", { type: "task_result", node: "agent", status: "done", step: 0, taskId: "t" }),
      ev("values", { count: 1 }),
    ];
    let log = emptyLog();
    const seen: string[][] = [];
    for (const e of events) {
      log = reduceEvent(log, e);
      seen.push(log.active);
    }
    expect(seen[1]).toEqual(["agent"]);
    expect(log.active).toEqual([]);
    expect(log.visited).toEqual(["agent"]);
    expect(log.runId).toBe("r1");
    expect(log.values).toEqual({ count: 1 });
    expect(log.entries).toEqual([
      { kind: "node", node: "agent", status: "started" },
      { kind: "tokens", node: "agent", text: "Hello" },
      { kind: "update", node: "agent", keys: ["messages", "count"] },
      { kind: "node", node: "agent", status: "done" },
    ]);
    expect(reduceEvent(log, ev("end", null)).status).toBe("ended");
  });

  it("records errors in plain words and ignores subgraph events", () => {
    let log = reduceEvent(emptyLog(), ev("debug|quiz:1", { type: "task", node: "inner" }));
    expect(log.active).toEqual([]);
    log = reduceEvent(log, ev("error", { error: "NOT_FOUND", message: "No thread x." }));
    expect(log.status).toBe("error");
    expect(log.entries.at(-1)).toEqual({ kind: "error", text: "No thread x. (NOT_FOUND)" });
  });
});
