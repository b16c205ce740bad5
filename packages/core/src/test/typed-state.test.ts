/**
 * Typed state schemas: a channel may carry a Standard Schema. What a caller writes (input,
 * `Command({ update })`, `updateState`) is checked against it before anything is stored; a node's
 * `resumeSchema` checks resume answers; `getSchemas()` returns JSON Schema built from them. The schemas
 * here are hand-written Standard Schema v1 objects: core knows no schema library (the apps use zod).
 */
import { describe, expect, it } from "vitest";
import {
  Command,
  channel,
  InvalidUpdateError,
  interrupt,
  MemorySaver,
  ResumeError,
  START,
  type StandardSchemaV1,
  StateGraph,
  TrellisError,
} from "../index.js";
import { caught } from "./caught.js";

/** A Standard Schema (with a Standard JSON Schema) that accepts what `ok` accepts. */
function schemaOf<T>(ok: (v: unknown) => boolean, message: string, json?: Record<string, unknown>) {
  const schema: StandardSchemaV1<unknown, T> = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate: (value) => (ok(value) ? { value: value as T } : { issues: [{ message }] }),
      ...(json ? { jsonSchema: { input: () => ({ $schema: "x", ...json }), output: () => json } } : {}),
    },
  };
  return schema;
}

const integer = schemaOf<number>((v) => Number.isInteger(v), "expected an integer", { type: "integer" });
const place = schemaOf<string>((v) => v === "teams" || v === "slack", "expected teams or slack", {
  type: "string",
  enum: ["teams", "slack"],
});
const approval = schemaOf<{ approved: boolean }>(
  (v) => typeof (v as { approved?: unknown })?.approved === "boolean",
  "approved must be true or false",
);

function typedGraph() {
  const ran: string[] = [];
  const graph = new StateGraph(
    {
      topic: channel.value(""),
      channel: channel.value("teams", { schema: place }),
      revisions: channel.reduce((a: number, b: number) => a + b, 0, { schema: integer }),
      approved: channel.value(false),
      messages: channel.messages(),
    },
    { name: "typed" },
  )
    .addNode(
      "draft",
      (s) => {
        ran.push("draft");
        return { topic: `${s.topic}!` };
      },
      {},
    )
    .addNode(
      "review",
      () => {
        const answer = interrupt<{ approved: boolean }>({ ask: "approve?" });
        return { approved: answer.approved };
      },
      { resumeSchema: approval },
    )
    .addEdge(START, "draft")
    .addEdge("draft", "review")
    .compile({ checkpointer: new MemorySaver() });
  return { graph, ran };
}

describe("channel schemas check what callers write", () => {
  it("an input that breaks a key's schema is INVALID_STATE naming the key; no checkpoint, no node ran", async () => {
    const { graph, ran } = typedGraph();
    const error = await caught(
      () => graph.invoke({ topic: "x", channel: "whatsapp" as "teams" }, { threadId: "t1" }),
      InvalidUpdateError,
      "INVALID_STATE",
    );
    expect(error.message).toMatch(/state key "channel" to "whatsapp".*expected teams or slack/);
    expect(error.details.key).toBe("channel");
    expect(ran).toEqual([]);
    expect((await graph.getState({ threadId: "t1" })).checkpointId).toBeUndefined();
  });

  it("a reducer key is checked on the value the write makes (0 + 'abc' is '0abc', not an integer)", async () => {
    const { graph } = typedGraph();
    await graph.invoke({ topic: "x" }, { threadId: "t2" });
    const before = await graph.getState({ threadId: "t2" });
    const error = await caught(
      () => graph.updateState({ threadId: "t2" }, { revisions: "abc" as unknown as number }),
      InvalidUpdateError,
      "INVALID_STATE",
    );
    expect(error.message).toMatch(/"revisions" to "0abc"/);
    const after = await graph.getState({ threadId: "t2" });
    expect(after.checkpointId).toBe(before.checkpointId);
    expect(after.values.revisions).toBe(0);
    await graph.updateState({ threadId: "t2" }, { revisions: 2 });
    expect((await graph.getState({ threadId: "t2" })).values.revisions).toBe(2);
  });

  it("a Command's update is checked too, and a valid input runs as before", async () => {
    const { graph } = typedGraph();
    const paused = await graph.invoke({ topic: "x", channel: "slack", revisions: 1 }, { threadId: "t3" });
    expect(paused.__interrupt__).toHaveLength(1);
    await caught(
      () =>
        graph.invoke(new Command({ update: { channel: "fax" as "teams" }, resume: { approved: true } }), {
          threadId: "t3",
        }),
      InvalidUpdateError,
      "INVALID_STATE",
    );
    expect((await graph.getState({ threadId: "t3" })).values.channel).toBe("slack");
  });

  it("checkInput applies the same check for a server accepting a request", () => {
    const { graph } = typedGraph();
    expect(() => graph.checkInput(undefined, { revisions: 1.5 })).toThrow(/"revisions" to 1.5.*expected an integer/);
    expect(() => graph.checkInput(undefined, { revisions: 2, channel: "slack" })).not.toThrow();
  });

  it("a schema must produce the channel's value type (checked by the compiler)", () => {
    const text = schemaOf<string>((v) => typeof v === "string", "expected text");
    // @ts-expect-error a text schema on a number channel
    const wrong = channel.value<number>(0, { schema: text });
    const right = channel.value<number>(0, { schema: integer });
    expect([wrong.schema, right.schema]).toEqual([text, integer]);
  });

  it("node writes are not checked (the schema guards the boundary, not the graph's own code)", async () => {
    const graph = new StateGraph({ n: channel.value(0, { schema: integer }) })
      .addNode("half", () => ({ n: 0.5 }))
      .addEdge(START, "half")
      .compile();
    expect((await graph.invoke({ n: 1 })).n).toBe(0.5);
  });
});

describe("subgraphs", () => {
  it("the state a parent hands its subgraph is the graph's own data: not checked as a caller's input", async () => {
    const child = new StateGraph({ n: channel.value(0, { schema: integer }) })
      .addNode("read", (s) => ({ n: s.n }))
      .addEdge(START, "read")
      .compile();
    const parent = new StateGraph({ n: channel.value(0, { schema: integer }) })
      .addNode("half", () => ({ n: 0.5 }))
      .addNode("child", child)
      .addEdge(START, "half")
      .addEdge("half", "child")
      .compile();
    expect((await parent.invoke({ n: 1 })).n).toBe(0.5);
    await caught(() => parent.invoke({ n: 0.25 }), InvalidUpdateError, "INVALID_STATE");
  });
});

describe("resumeSchema", () => {
  it("a resume answer that breaks the node's resumeSchema is INVALID_RESUME; the thread stays paused", async () => {
    const { graph } = typedGraph();
    const paused = await graph.invoke({ topic: "x" }, { threadId: "r1" });
    const id = paused.__interrupt__?.[0]?.id as string;
    const error = await caught(
      () => graph.invoke(new Command({ resume: { approved: "yes" } }), { threadId: "r1" }),
      ResumeError,
      "INVALID_RESUME",
    );
    expect(error.message).toMatch(/node "review".*approved must be true or false/);
    const state = await graph.getState({ threadId: "r1" });
    expect(state.interrupts.map((i) => i.id)).toEqual([id]);
    expect(() => graph.checkResume(state.interrupts, { [id]: "no" })).toThrow(/resumeSchema/);
    const done = await graph.invoke(new Command({ resume: { approved: true } }), { threadId: "r1" });
    expect(done.approved).toBe(true);
  });
});

describe("getSchemas", () => {
  it("builds JSON Schema from the channels' schemas, with defaults; keys without one accept anything", () => {
    const { graph } = typedGraph();
    const { input, state, config, context } = graph.getSchemas();
    expect(input).toEqual(state);
    expect(input).toMatchObject({
      title: "typed",
      type: "object",
      properties: {
        topic: { default: "" },
        channel: { type: "string", enum: ["teams", "slack"], default: "teams" },
        revisions: { type: "integer", default: 0 },
        approved: { default: false },
        messages: { type: "array", default: [] },
      },
    });
    expect((input.properties as Record<string, object>).channel).not.toHaveProperty("$schema");
    expect(config).toEqual({ type: "object", properties: {} });
    expect(context).toBeNull();
  });

  it("shows and checks the config and context schemas a graph declares", () => {
    const model = schemaOf<{ model: string }>(
      (v) => typeof (v as { model?: unknown })?.model === "string",
      "model must be a string",
      { type: "object", properties: { model: { type: "string" } }, required: ["model"] },
    );
    const graph = new StateGraph({ n: channel.value(0) }, { configSchema: model, contextSchema: model })
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .compile();
    expect(graph.getSchemas().context).toMatchObject({ required: ["model"] });
    expect(graph.getSchemas().config).toMatchObject({ properties: { model: { type: "string" } } });
    expect(() => graph.checkConfig({ configurable: { model: 4 } })).toThrow(TrellisError);
    expect(() => graph.checkConfig({ configurable: { model: "m" }, context: { model: "m" } })).not.toThrow();
  });

  it("an explicit jsonSchema stands for a schema that has no JSON Schema of its own", () => {
    const bare = schemaOf<number>((v) => typeof v === "number", "a number");
    const graph = new StateGraph({ n: channel.value(0, { schema: bare, jsonSchema: { type: "number" } }) })
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .compile();
    expect(graph.getSchemas().state.properties).toEqual({ n: { type: "number", default: 0 } });
  });
});
