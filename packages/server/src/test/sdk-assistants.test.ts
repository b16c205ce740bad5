/**
 * Assistants as data on the embedded server (SQLite): the shared cases, and an assistant's config
 * checked against its graph's config schema when it is saved.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { ASSISTANT_GRAPHS, assistantCases, refusal } from "./assistant-cases.js";
import { sdkServer } from "./harness.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-assistants-"));

assistantCases({
  label: "SQLite",
  saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
  async dispose() {
    rmSync(dir, { recursive: true, force: true });
  },
});

describe("assistants of a graph with a config schema", () => {
  const s = sdkServer({
    graphs: { ...ASSISTANT_GRAPHS, typed: { module: "./src/test/fixture-typed.ts", graph: "typedGraph" } },
  });

  it("an assistant whose config does not fit the graph's config schema is a 400 when saved, not at its run", async () => {
    const bad = await refusal(
      s.client.assistants.create({ graphId: "typed", config: { configurable: { tone: "rude" } } }),
    );
    expect(bad.status).toBe(400);
    expect(bad.message).toContain("The assistant's configurable");
    expect(bad.message).toContain("tone");
    expect(await s.client.assistants.count({ graphId: "typed" })).toBe(1); // the system one only
    const good = await s.client.assistants.create({ graphId: "typed", config: { configurable: { tone: "formal" } } });
    const update = await refusal(s.client.assistants.update(good.assistant_id, { context: { tone: "rude" } }));
    expect(update.status).toBe(400);
    expect((await s.client.assistants.get(good.assistant_id)).version).toBe(1);
  });
});

describe("assistants through the AG-UI door", () => {
  const s = sdkServer({ graphs: ASSISTANT_GRAPHS });

  it("an AG-UI run on an assistant made with POST /assistants gets its config, on a thread of its graph", async () => {
    const a = await s.client.assistants.create({ graphId: "configured", context: { model: "m-agui", tone: "warm" } });
    const agent = new HttpAgent({
      url: `${s.t.url}/ag-ui/${a.assistant_id}`,
      threadId: randomUUID(),
      initialState: { seen: { from: "client" } },
    });
    const events: BaseEvent[] = [];
    await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
    const state = await s.client.threads.getState<{ seen: Record<string, unknown> }>(agent.threadId);
    expect(state.values.seen).toEqual({ model: "m-agui", tone: "warm", lang: null });
    expect((await s.client.threads.get(agent.threadId)).metadata).toMatchObject({
      graph_id: "configured",
      assistant_id: a.assistant_id,
    });
  });
});
