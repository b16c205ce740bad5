/**
 * The AG-UI door describes a pending interrupt as every door reads it (`readPause` from
 * `@trellis/protocol`): the question as the interrupt's message, and the pause — its kind and its form —
 * in the metadata, so an AG-UI client draws the same form as the CLI and the studio.
 */
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    graphs: {
      pick: { module: "./src/test/fixture-pauses.ts", graph: "choiceGraph" },
      ask: { module: "./src/test/fixture-graphs.ts", graph: "askGraph" },
    },
  });
});
afterAll(async () => {
  await t.close();
});

interface Finished {
  outcome: {
    type: string;
    interrupts: Array<{ id: string; message?: string; metadata: { pause: unknown; value: unknown } }>;
  };
}

async function finish(graph: string, params: Parameters<HttpAgent["runAgent"]>[0] = {}) {
  const agent = new HttpAgent({ url: `${t.url}/ag-ui/${graph}` });
  agent.messages = [{ id: "u1", role: "user", content: "go" }];
  const events: BaseEvent[] = [];
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  return { agent, last: events.at(-1) as unknown as Finished };
}

describe("AG-UI interrupts carry the pause vocabulary", () => {
  it("a declared choice is described with its kind and options, and answered with the option's key", async () => {
    const { agent, last } = await finish("pick");
    expect(last.outcome.type).toBe("interrupt");
    const [pending] = last.outcome.interrupts;
    expect(pending?.message).toBe("Which site?");
    expect(pending?.metadata.pause).toEqual({
      kind: "choose",
      question: "Which site?",
      options: [
        { key: "n", label: "North" },
        { key: "s", label: "South" },
      ],
    });
    const events: BaseEvent[] = [];
    await agent.runAgent(
      { resume: [{ interruptId: pending?.id as string, status: "resolved", payload: "s" }] },
      { onEvent: ({ event }) => void events.push(event) },
    );
    const done = events.at(-1) as unknown as { outcome: { type: string }; result: { picked: string } };
    expect(done.outcome.type).toBe("success");
    expect(done.result.picked).toBe("s");
  });

  it("an undeclared question is read by its shape, as the CLI and the studio read it", async () => {
    const { last } = await finish("ask");
    expect(last.outcome.interrupts[0]?.metadata.pause).toEqual({ kind: "text", question: "What is your name?" });
  });
});
