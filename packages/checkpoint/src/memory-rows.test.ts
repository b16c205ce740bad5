import { describe, expect, it } from "vitest";
import { MemorySaver } from "./memory-saver.js";
import { jsonSerializer, type Serializer } from "./serializer.js";
import { stepRequest, uniqueThreadId } from "./testing/fixtures.js";
import type { Checkpoint } from "./types.js";

/** The default serializer, counting what it is asked to serialize. */
function countingSerializer(): Serializer & { serialized: unknown[] } {
  const serialized: unknown[] = [];
  return {
    serialized,
    serialize(value) {
      serialized.push(value);
      return jsonSerializer.serialize(value);
    },
    deserialize: (text) => jsonSerializer.deserialize(text),
  };
}

describe("MemorySaver's checkpoint rows", () => {
  it("a superstep's put serializes the values it changed, not the checkpoint row", async () => {
    const serde = countingSerializer();
    const saver = new MemorySaver({ serializer: serde });
    const threadId = uniqueThreadId();
    const first = stepRequest({
      threadId,
      id: "0001",
      full: { a: 1, b: "x" },
      metadata: { source: "input", step: -1 },
    });
    await saver.put(first);
    const second = stepRequest({ threadId, id: "0002", parent: first.checkpoint, full: { a: 2 } });
    serde.serialized.length = 0;
    await saver.put(second);
    // one changed channel: its value, and nothing else
    expect(serde.serialized).toEqual([2]);
  });

  it("metadata the caller adds, and Send arguments, go through the serializer: checked and copied", async () => {
    const serde = countingSerializer();
    const saver = new MemorySaver({ serializer: serde });
    const threadId = uniqueThreadId();
    const at = new Date(5);
    const request = stepRequest({ threadId, id: "0001", full: { a: 1 }, metadata: { runId: "r-1", at } });
    request.checkpoint.next = [{ node: "grade", send: { arg: { doc: "a.md", tags: new Set(["x"]) } } }];
    await saver.put(request);
    expect(serde.serialized).toContainEqual(request.checkpoint.metadata);
    expect(serde.serialized).toContainEqual({ doc: "a.md", tags: new Set(["x"]) });
    const read = (await saver.get({ threadId }))?.checkpoint as Checkpoint;
    expect(read.metadata.at).toEqual(at);
    expect(read.metadata.at).not.toBe(at);
    expect(read.next).toEqual([{ node: "grade", send: { arg: { doc: "a.md", tags: new Set(["x"]) } } }]);
  });

  it("keeps its own copy: changing the checkpoint put, or one read back, changes nothing stored", async () => {
    const saver = new MemorySaver();
    const threadId = uniqueThreadId();
    const request = stepRequest({ threadId, id: "0001", full: { a: 1 }, metadata: { source: "loop", step: 0 } });
    request.checkpoint.next = [{ node: "b" }];
    request.checkpoint.barriers = { join: ["a"] };
    request.checkpoint.metadata.writes = { a: ["a"] };
    const before = structuredClone(request.checkpoint);
    await saver.put(request);
    const cp = request.checkpoint;
    cp.channelVersions.a = "changed";
    (cp.next[0] as { node: string }).node = "changed";
    cp.barriers.join?.push("changed");
    cp.metadata.writes.a?.push("changed");
    cp.metadata.step = 99;
    const read = (await saver.get({ threadId }))?.checkpoint as Checkpoint;
    expect(read).toEqual(before);
    read.metadata.writes.a?.push("again");
    read.channelDepths.a = 3;
    read.barriers.join?.push("again");
    expect((await saver.get({ threadId }))?.checkpoint).toEqual(before);
  });

  it("counts a row's bytes as its serialized text", async () => {
    const saver = new MemorySaver();
    const threadId = uniqueThreadId();
    const request = stepRequest({ threadId, id: "0001", full: { a: "x" }, metadata: { source: "input", step: -1 } });
    await saver.put(request);
    const text = jsonSerializer.serialize(request.checkpoint);
    expect(await saver.storedBytes(threadId)).toBe(Buffer.byteLength(text) + Buffer.byteLength('"x"'));
  });
});
