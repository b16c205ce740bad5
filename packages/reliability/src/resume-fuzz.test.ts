import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./fixtures/test-server.js";

/** How many payloads each run tries: `TRELLIS_FUZZ_RUNS` (the soak run sets 2,000). */
const RUNS = Number(process.env.TRELLIS_FUZZ_RUNS ?? 150);

/**
 * Resume requests that must be refused: each breaks exactly one rule, everything else in it valid.
 * Raw JSON text, so payloads JSON.stringify cannot produce (1e999, 10,000-deep nesting, bad JSON,
 * duplicate or `__proto__` keys) are sent as well.
 */
function hostileResumes(interruptId: string): fc.Arbitrary<{ label: string; path: string; raw: string }> {
  const value = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));
  const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/).filter((k) => k !== interruptId);
  const mode = fc.constantFrom("", "/wait", "/stream");
  const body = (fields: string) => `{${fields}}`;
  const ask = '"assistant_id":"ask"';
  const cases: fc.Arbitrary<[string, string]>[] = [
    fc.string({ maxLength: 40 }).map((s) => ["not a JSON object", s]),
    fc
      .oneof(fc.string(), fc.integer(), fc.array(fc.integer()))
      .map((c) => ["command not an object", body(`${ask},"command":${JSON.stringify(c)}`)]),
    fc
      .constantFrom("{}", '{"__proto__":{"resume":"x"}}', '{"resume":undefined}')
      .map((c) => ["empty command", body(`${ask},"command":${c}`)]),
    fc
      .dictionary(hex32, value, { minKeys: 1, maxKeys: 3 })
      .map((m) => ["resume map naming no pending interrupt", body(`${ask},"command":{"resume":${JSON.stringify(m)}}`)]),
    // an update with a resume is LangGraph's edit-and-answer (accepted); one naming no state key is not
    fc
      .tuple(value, value)
      .map(([r, u]) => ["resume with update", body(`${ask},"command":{"resume":${r},"update":{"no_such_key":${u}}}`)]),
    fc
      .tuple(value, fc.constantFrom('"done"', '"ask"', '["done"]'))
      .map(([r, g]) => ["resume with goto", body(`${ask},"command":{"resume":${r},"goto":${g}}`)]),
    // an empty input with a command is the command alone (useStream sends it); a real input is not
    value.map((r) => ["resume and input", body(`${ask},"input":{"log":["x"]},"command":{"resume":${r}}`)]),
    fc
      .constantFrom(
        "1e999",
        "-1e999",
        `${"[".repeat(10_000)}1${"]".repeat(10_000)}`,
        `{"a":${'{"a":'.repeat(600)}1${"}".repeat(600)}}`,
      )
      .map((r) => ["resume not plain data", body(`${ask},"command":{"resume":${r}}`)]),
    fc
      .tuple(value, fc.constantFrom('"nope"', "1", "null", '""', '"slow"'))
      .map(([r, a]) => ["wrong assistant", body(`"assistant_id":${a},"command":{"resume":${r}}`)]),
    fc
      .tuple(
        value,
        fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !["answer", "data", "log", "delayMs"].includes(k)),
      )
      .map(([r, k]) => ["update of an unknown key", body(`${ask},"command":{"update":{${JSON.stringify(k)}:${r}}}`)]),
    fc
      .string({ maxLength: 10 })
      .filter((g) => g !== "ask" && g !== "done" && g !== "__end__")
      .map((g) => ["goto an unknown node", body(`${ask},"command":{"goto":${JSON.stringify(g)}}`)]),
    fc
      .tuple(value, fc.constantFrom('"bogus"', "1", '["values","nope"]'))
      .map(([r, m]) => ["bad stream_mode", body(`${ask},"stream_mode":${m},"command":{"resume":${r}}`)]),
    fc
      .tuple(value, fc.constantFrom('"maybe"', "true", '"REJECT"'))
      .map(([r, s]) => ["bad multitask_strategy", body(`${ask},"multitask_strategy":${s},"command":{"resume":${r}}`)]),
    fc
      .tuple(value, fc.constantFrom("0", "-1", "1.5", '"10"', "100000"))
      .map(([r, n]) => [
        "bad recursion_limit",
        body(`${ask},"config":{"recursion_limit":${n}},"command":{"resume":${r}}`),
      ]),
    fc
      .tuple(value, fc.stringMatching(/^[0-9a-f]{16,32}$/))
      .map(([r, id]) => ["unknown checkpoint_id", body(`${ask},"checkpoint_id":"${id}","command":{"resume":${r}}`)]),
    fc
      .tuple(value, fc.constantFrom('"*x"', '["nope"]', "7"))
      .map(([r, b]) => ["bad interrupt_before", body(`${ask},"interrupt_before":${b},"command":{"resume":${r}}`)]),
  ];
  return fc.tuple(fc.oneof(...cases), mode).map(([[label, raw], m]) => ({ label, raw, path: m }));
}

describe("resume payload fuzzing over HTTP", () => {
  let t: TestServer;
  let threadId: string;
  let interruptId: string;
  const snapshot = async () => {
    const history = await t.call("POST", `/threads/${threadId}/history`, { body: { limit: 100 } });
    const state = await t.call("GET", `/threads/${threadId}/state`);
    const runs = await t.call("GET", `/threads/${threadId}/runs`);
    return `${history.text}\n${state.text}\n${runs.text}`;
  };

  beforeAll(async () => {
    t = await startTestServer({ limits: { bodyBytes: 1024 * 1024, stateBytes: 1024 * 1024 } });
    threadId = ((await t.call("POST", "/threads", { body: {} })).json as { thread_id: string }).thread_id;
    const paused = await t.call("POST", `/threads/${threadId}/runs/wait`, { body: { assistant_id: "ask", input: {} } });
    interruptId = (paused.json as { __interrupt__: { id: string }[] }).__interrupt__[0]?.id as string;
  });
  afterAll(async () => {
    await t.close();
  });

  it(`${RUNS} hostile resume requests: only 4xx answers, and the thread's checkpoints are unchanged`, async () => {
    const before = await snapshot();
    const statuses = new Map<number, number>();
    const labels = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(hostileResumes(interruptId), async ({ label, raw, path }) => {
        const res = await t.call("POST", `/threads/${threadId}/runs${path}`, { raw });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        labels.set(label, (labels.get(label) ?? 0) + 1);
        expect([label, res.status >= 400 && res.status < 500]).toEqual([label, true]);
        expect(typeof (res.json as { error?: unknown })?.error).toBe("string");
      }),
      { numRuns: RUNS, seed: 14 },
    );
    expect(await snapshot()).toBe(before);
    console.log(
      `[reliability] resume fuzz: ${RUNS} payloads in ${labels.size} kinds, answers ${JSON.stringify(Object.fromEntries(statuses))}; checkpoints and runs unchanged`,
    );
    // The thread still takes a good answer afterwards.
    const good = await t.call("POST", `/threads/${threadId}/runs/wait`, {
      body: { assistant_id: "ask", command: { resume: { [interruptId]: "yes" } } },
    });
    expect((good.json as { answer: unknown }).answer).toBe("yes");
  });

  it("a command with only update or goto continues a paused thread (it is not taken for a resume)", async () => {
    const T = ((await t.call("POST", "/threads", { body: {} })).json as { thread_id: string }).thread_id;
    await t.call("POST", `/threads/${T}/runs/wait`, { body: { assistant_id: "ask", input: {} } });
    const updated = await t.call("POST", `/threads/${T}/runs/wait`, {
      body: { assistant_id: "ask", command: { update: { data: "patched" } } },
    });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ data: "patched" });
    expect((updated.json as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1); // asks again
    const jumped = await t.call("POST", `/threads/${T}/runs/wait`, {
      body: { assistant_id: "ask", command: { goto: "done" } },
    });
    expect(jumped.json).toMatchObject({ log: ["done"] });
  });
});
