import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blobChecksum, jsonSerializer, MemorySaver, TrellisError } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { Command, channel, END, InvalidUpdateError, START, StateGraph } from "@trellis/core";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./fixtures/test-server.js";
import { openRawStore } from "./harness/raw-store.js";

const DEEP = 10_000;
/** JSON text of an array nested `n` deep (built as text: building the value would take a deep stack). */
const deepText = (n: number) => `${"[".repeat(n)}1${"]".repeat(n)}`;
const deepObjectText = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
const ALLOWED_PROTOTYPES = new Set<unknown>([
  Object.prototype,
  Array.prototype,
  Date.prototype,
  Map.prototype,
  Set.prototype,
  Uint8Array.prototype,
]);
const objectPrototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort().join(",");
const PRISTINE = objectPrototypeKeys();

/** Every object in `value` is plain data of an allowed kind: no class instance, no function. */
function expectOnlyPlainData(value: unknown): void {
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0 && seen++ < 100_000) {
    const v = stack.pop();
    expect(typeof v).not.toBe("function");
    if (v === null || typeof v !== "object") continue;
    expect(ALLOWED_PROTOTYPES.has(Object.getPrototypeOf(v))).toBe(true);
    if (v instanceof Map) for (const [k, x] of v) stack.push(k, x);
    else if (v instanceof Set) for (const x of v) stack.push(x);
    else if (!(v instanceof Date) && !(v instanceof Uint8Array)) stack.push(...Object.values(v));
  }
}

function expectNoPollution(): void {
  expect(objectPrototypeKeys()).toBe(PRISTINE);
  const probe = {} as Record<string, unknown>;
  for (const key of ["polluted", "bad", "isAdmin", "v"]) expect(probe[key]).toBeUndefined();
}

afterEach(() => expectNoPollution());

describe("hostile stored data through the serializer", () => {
  // JSON text built from keys an attacker would choose, with tag-like objects mixed in.
  const key = fc.constantFrom("__proto__", "constructor", "prototype", "$trellis", "v", "toString", "isAdmin", "a");
  const tag = fc.constantFrom(
    "Date",
    "Map",
    "Set",
    "BigInt",
    "Bytes",
    "Object",
    "Undefined",
    "Number",
    "Evil",
    "__proto__",
  );
  const leaf = fc.oneof(
    fc.constantFrom("null", "true", "0", "-0", "1e308", '"x"', '"__proto__"', '"AAEC"', '"12n"', '"2020-01-01"'),
    fc.string().map((s) => JSON.stringify(s)),
  );
  const { node } = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.array(tie("node"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
      fc
        .array(fc.tuple(key, tie("node")), { maxLength: 4 })
        .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
      fc.tuple(tag, tie("node")).map(([t, v]) => `{"$trellis":${JSON.stringify(t)},"v":${v}}`),
    ),
  }));

  it("decodes any such text to plain data or fails with a SERIALIZATION error; no prototype is touched", () => {
    let decoded = 0;
    let refused = 0;
    fc.assert(
      fc.property(node, (text) => {
        let out: unknown;
        try {
          out = jsonSerializer.deserialize(text);
        } catch (error) {
          expect(error).toBeInstanceOf(TrellisError);
          expect((error as TrellisError).code).toBe("SERIALIZATION");
          refused++;
          return;
        }
        decoded++;
        expectOnlyPlainData(out);
        expectNoPollution();
      }),
      { numRuns: 1_000, seed: 1404 },
    );
    console.log(
      `[reliability] hostile serializer input: ${decoded} texts decoded to plain data, ${refused} refused (SERIALIZATION)`,
    );
    expect(decoded).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it("keeps `__proto__` as an own key, tagged or not", () => {
    for (const text of [
      '{"__proto__":{"isAdmin":true},"a":1}',
      '{"__proto__":{"isAdmin":true},"when":{"$trellis":"Date","v":"2020-01-01T00:00:00.000Z"}}',
      '{"$trellis":"Object","v":{"__proto__":{"isAdmin":true},"$trellis":1}}',
      '{"$trellis":"Map","v":[["__proto__",{"isAdmin":true}]]}',
    ]) {
      const out = jsonSerializer.deserialize(text) as Record<string, unknown>;
      expect((out as { isAdmin?: unknown }).isAdmin).toBeUndefined();
      if (!(out instanceof Map)) expect(Object.hasOwn(out, "__proto__")).toBe(true);
      expect(jsonSerializer.deserialize(jsonSerializer.serialize(out))).toEqual(out);
    }
  });

  it("refuses values nested 10,000 deep, tagged or not, with a typed error instead of a stack overflow", () => {
    for (const text of [
      deepText(DEEP),
      deepObjectText(DEEP),
      `{"$trellis":"Set","v":${deepText(DEEP)}}`,
      `{"x":{"$trellis":"Date","v":"2020-01-01"},"deep":${deepObjectText(DEEP)}}`,
    ]) {
      const error = (() => {
        try {
          jsonSerializer.deserialize(text);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(TrellisError);
      expect((error as TrellisError).code).toBe("SERIALIZATION");
    }
    // …and a value just under the limit still round-trips.
    expect(jsonSerializer.deserialize(deepText(500))).toBeInstanceOf(Array);
  });

  it("round-trips a 32 MiB string", () => {
    const huge = "x".repeat(32 * 1024 * 1024);
    expect((jsonSerializer.deserialize(jsonSerializer.serialize({ huge })) as { huge: string }).huge.length).toBe(
      huge.length,
    );
  });
});

describe("hostile data through the runtime: node writes, inputs, resume values", () => {
  const schema = { data: channel.value<unknown>(null), answer: channel.value<unknown>(null) };
  const hostile = () => JSON.parse('{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"bad":1}},"ok":1}');
  const deep = () => JSON.parse(deepText(DEEP));
  class Token {
    secret = 1;
  }

  function writer(value: () => unknown) {
    return new StateGraph(schema)
      .addNode("write", () => ({ data: value() }))
      .addEdge(START, "write")
      .addEdge("write", END)
      .compile({ checkpointer: new MemorySaver() });
  }

  it("a node writing __proto__ keys stores them as data; as a state key it is UNKNOWN_STATE_KEY", async () => {
    const out = await writer(hostile).invoke({}, { threadId: "t" });
    expect(Object.hasOwn(out.data as object, "__proto__")).toBe(true);
    expect((out.data as { isAdmin?: unknown }).isAdmin).toBeUndefined();
    const asKey = new StateGraph(schema)
      .addNode("write", () => JSON.parse('{"__proto__":{"data":1}}'))
      .addEdge(START, "write")
      .compile({ checkpointer: new MemorySaver() });
    const error = await asKey.invoke({}, { threadId: "t" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidUpdateError);
    expect((error as TrellisError).code).toBe("UNKNOWN_STATE_KEY");
  });

  it("a node writing 10,000-deep data or a class instance gets NOT_PLAIN_DATA naming node and key", async () => {
    for (const make of [deep, () => new Token()]) {
      const error = await writer(make)
        .invoke({}, { threadId: "t" })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidUpdateError);
      expect((error as TrellisError).code).toBe("NOT_PLAIN_DATA");
      expect((error as TrellisError).details).toMatchObject({ node: "write", key: '"data"' });
    }
  });

  it("inputs: hostile keys are data, deep or class-instance inputs are NOT_PLAIN_DATA and store nothing", async () => {
    const saver = new MemorySaver();
    const graph = writer(() => null).withCheckpointer(saver);
    const ok = await graph.invoke({ answer: hostile() }, { threadId: "in" });
    expect(Object.hasOwn(ok.answer as object, "__proto__")).toBe(true);
    for (const input of [{ answer: deep() }, { answer: new Token() }]) {
      const error = await graph.invoke(input, { threadId: "fresh" }).catch((e: unknown) => e);
      expect((error as TrellisError).code).toBe("NOT_PLAIN_DATA");
    }
    expect(await saver.get({ threadId: "fresh" })).toBeUndefined();
  });

  it("resume values: hostile keys arrive as data; deep, non-finite or class-instance answers are refused and the thread stays paused", async () => {
    const saver = new MemorySaver();
    const graph = new StateGraph(schema)
      .addNode("ask", (_s, ctx) => ({ answer: ctx.interrupt({ q: "?" }) }))
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile({ checkpointer: saver });
    await graph.invoke({}, { threadId: "r" });
    const before = JSON.stringify(await saver.get({ threadId: "r" }));
    for (const resume of [deep(), new Token(), Number.POSITIVE_INFINITY, () => 1]) {
      const result = await graph.run(new Command({ resume }), { threadId: "r" });
      expect(result.status).toBe("error");
      expect(((result as { error: TrellisError }).error as TrellisError).code).toBe("NOT_PLAIN_DATA");
      expect(JSON.stringify(await saver.get({ threadId: "r" }))).toBe(before);
    }
    const done = await graph.invoke(new Command({ resume: hostile() }), { threadId: "r" });
    expect(Object.hasOwn(done.answer as object, "__proto__")).toBe(true);
    expect((done.answer as { isAdmin?: unknown }).isAdmin).toBeUndefined();
  });
});

describe("hostile data through the server's HTTP API", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ limits: { bodyBytes: 256 * 1024, stateBytes: 64 * 1024 } });
  });
  afterAll(async () => {
    await t.close();
  });

  const newThread = async () =>
    ((await t.call("POST", "/threads", { body: {} })).json as { thread_id: string }).thread_id;

  it("__proto__ keys in metadata, inputs and resume values are stored as data; as a state key they are a 400", async () => {
    const created = await t.call("POST", "/threads", { raw: '{"metadata":{"__proto__":{"isAdmin":true},"k":1}}' });
    expect(created.status).toBe(200);
    const id = (created.json as { thread_id: string }).thread_id;
    const got = (await t.call("GET", `/threads/${id}`)).json as { metadata: Record<string, unknown> };
    expect(Object.hasOwn(got.metadata, "__proto__")).toBe(true);
    expect((got.metadata as { isAdmin?: unknown }).isAdmin).toBeUndefined();

    const T = await newThread();
    const asKey = await t.call("POST", `/threads/${T}/runs/wait`, {
      raw: '{"assistant_id":"echo","input":{"__proto__":{"data":1}}}',
    });
    expect([asKey.status, (asKey.json as { error: string }).error]).toEqual([400, "UNKNOWN_STATE_KEY"]);
    const echoed = await t.call("POST", `/threads/${T}/runs/wait`, {
      raw: '{"assistant_id":"echo","input":{"data":{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"bad":1}}}}}',
    });
    expect(echoed.status).toBe(200);
    const answer = (echoed.json as { answer: Record<string, unknown> }).answer;
    expect(Object.hasOwn(answer, "__proto__")).toBe(true);
    expect((answer as { isAdmin?: unknown }).isAdmin).toBeUndefined();
  });

  it("10,000-deep nesting and non-finite numbers anywhere in a body are a 400 NOT_PLAIN_DATA, and nothing is stored", async () => {
    const T = await newThread();
    const history = async () => (await t.call("POST", `/threads/${T}/history`, { body: { limit: 100 } })).text;
    const before = await history();
    const bodies: [string, string, string][] = [
      ["POST", "/threads", `{"metadata":{"x":${deepText(DEEP)}}}`],
      ["POST", "/threads/search", `{"metadata":${deepObjectText(DEEP)}}`],
      ["POST", `/threads/${T}/runs/wait`, `{"assistant_id":"echo","input":{"data":${deepText(DEEP)}}}`],
      ["POST", `/threads/${T}/runs`, `{"assistant_id":"echo","input":{"data":1e999}}`],
      ["POST", `/threads/${T}/runs`, `{"assistant_id":"echo","config":{"configurable":${deepObjectText(DEEP)}}}`],
      ["POST", `/threads/${T}/state`, `{"values":{"data":${deepText(DEEP)}}}`],
      ["PATCH", `/threads/${T}`, `{"metadata":${deepObjectText(DEEP)}}`],
      ["POST", "/runs/wait", `{"assistant_id":"echo","input":{"data":${deepText(DEEP)}}}`],
    ];
    for (const [method, path, raw] of bodies) {
      const res = await t.call(method, path, { raw });
      expect([method, path, res.status, (res.json as { error?: string })?.error]).toEqual([
        method,
        path,
        400,
        "NOT_PLAIN_DATA",
      ]);
    }
    expect(await history()).toBe(before);
    expect((await t.call("GET", `/threads/${T}/runs`)).json).toEqual([]);
  });

  it("huge strings: a body over the limit is a 413, a state over the limit is PAYLOAD_TOO_LARGE", async () => {
    const T = await newThread();
    const big = await t.call("POST", `/threads/${T}/runs/wait`, {
      body: { assistant_id: "echo", input: { data: "x".repeat(300 * 1024) } },
    });
    expect([big.status, (big.json as { error: string }).error]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    const tooMuchState = await t.call("POST", `/threads/${T}/runs/wait`, {
      body: { assistant_id: "echo", input: { data: "y".repeat(100 * 1024) } },
    });
    expect((tooMuchState.json as { __error__?: { error: string } }).__error__?.error).toBe("PAYLOAD_TOO_LARGE");
  });

  it("a stored value turned into 10,000-deep JSON (checksum fixed up) reads as CORRUPT_CHECKPOINT for that thread only", async () => {
    const sick = await newThread();
    const healthy = await newThread();
    for (const T of [sick, healthy]) {
      const r = await t.call("POST", `/threads/${T}/runs/wait`, { body: { assistant_id: "echo", input: { data: 1 } } });
      expect(r.status).toBe(200);
    }
    const raw = openRawStore({ kind: "sqlite", filename: join(t.dir, "trellis.sqlite") });
    try {
      const blob = (await raw.rows(sick, "blob")).find((b) => b.channel === "data");
      if (!blob) throw new Error("no stored value of data");
      const body = deepText(DEEP);
      await raw.update(sick, blob, body, blobChecksum(blob.blobKind ?? "full", blob.base ?? null, body));
    } finally {
      await raw.close();
    }
    const bad = await t.call("GET", `/threads/${sick}/state`);
    expect([bad.status, (bad.json as { error: string }).error]).toEqual([500, "CORRUPT_CHECKPOINT"]);
    expect((await t.call("GET", `/threads/${healthy}/state`)).status).toBe(200);
  });
});

describe("hostile stored data through a saver", () => {
  const dir = mkdtempSync(join(tmpdir(), "trellis-hostile-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a checkpoint row rewritten with __proto__ keys and a matching checksum creates no instance and pollutes nothing", async () => {
    const filename = join(dir, "h.db");
    const saver = new SqliteSaver({ filename });
    const graph = new StateGraph({ data: channel.value<unknown>(null) })
      .addNode("n", () => ({ data: { a: 1 } }))
      .addEdge(START, "n")
      .compile({ checkpointer: saver });
    await graph.invoke({}, { threadId: "h" });
    const raw = openRawStore({ kind: "sqlite", filename });
    const blob = (await raw.rows("h", "blob")).find((b) => b.channel === "data");
    if (!blob) throw new Error("no stored value");
    const body =
      '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"polluted":1}},"d":{"$trellis":"Date","v":"2020-01-01T00:00:00.000Z"}}';
    await raw.update("h", blob, body, blobChecksum(blob.blobKind ?? "full", blob.base ?? null, body));
    await raw.close();
    const state = await graph.getState({ threadId: "h" });
    expectOnlyPlainData(state.values);
    expect(Object.hasOwn(state.values.data as object, "__proto__")).toBe(true);
    expect((state.values.data as { d: unknown }).d).toBeInstanceOf(Date);
    await saver.close();
  });
});
