import { describe, expect, it } from "vitest";
import { MemorySaver } from "./memory-saver.js";
import { collect, putStep, stepRequest, uniqueThreadId } from "./testing/fixtures.js";

describe("MemorySaver's rows: values kept beside the checkpoint that stored them", () => {
  it("a value under another checkpoint's version, and one whose checkpoint was pruned, stay readable", async () => {
    const saver = new MemorySaver();
    const threadId = uniqueThreadId();
    const first = await putStep(saver, { threadId, id: "0001", full: { topic: "ladders", n: 0 } });
    // a caller's own version scheme: the value is versioned "v-7", not by the checkpoint's id
    const second = stepRequest({ threadId, id: "0002", parent: first, full: { n: 1 } });
    second.blobs.push({ channel: "note", version: "v-7", kind: "full", value: "kept" });
    second.checkpoint.channelVersions.note = "v-7";
    await saver.put(second);
    const third = await putStep(saver, { threadId, id: "0003", parent: second.checkpoint, full: { n: 2 } });
    await saver.prune(threadId, { keepLast: 1 });
    const head = await saver.get({ threadId });
    expect(head?.checkpoint.id).toBe(third.id);
    // "topic" was stored by the pruned 0001, "note" under a loose version: both still needed
    expect(head?.values).toEqual({ topic: "ladders", n: 2, note: "kept" });
    const alone = new MemorySaver();
    await putStep(alone, { threadId, id: "0003", full: { topic: "ladders", n: 2, note: "kept" } });
    const headRow = await alone.storedBytes(threadId);
    // what is left is one row and its three values; the pruned rows' n=0 and n=1 are gone
    expect(await saver.storedBytes(threadId)).toBeLessThanOrEqual(headRow + 64);
  });

  it("a checkpoint put again keeps the values and writes stored with it before", async () => {
    const saver = new MemorySaver();
    const threadId = uniqueThreadId();
    const request = stepRequest({
      threadId,
      id: "0001",
      full: { a: 1 },
      writes: [{ taskId: "t", channel: "a", value: 5 }],
    });
    await saver.put(request);
    await saver.put({ checkpoint: request.checkpoint, blobs: [] });
    const tuple = await saver.get({ threadId });
    expect(tuple?.values).toEqual({ a: 1 });
    expect(tuple?.pendingWrites).toEqual([{ taskId: "t", channel: "a", value: 5 }]);
  });

  it("a commit's writes against the checkpoint it puts come before the put's own writes", async () => {
    const saver = new MemorySaver();
    const threadId = uniqueThreadId();
    const put = stepRequest({
      threadId,
      id: "0001",
      full: { a: 1 },
      writes: [{ taskId: "own", channel: "a", value: 2 }],
    });
    await saver.commit({
      writes: { ref: { threadId, checkpointId: "0001" }, writes: [{ taskId: "held", channel: "a", value: 1 }] },
      put,
    });
    const tuple = await saver.get({ threadId });
    expect(tuple?.pendingWrites.map((w) => w.taskId)).toEqual(["held", "own"]);
  });

  it("checkpoints put out of order are listed newest first", async () => {
    const saver = new MemorySaver();
    const threadId = uniqueThreadId();
    for (const id of ["0003", "0001", "0002"]) await putStep(saver, { threadId, id, full: { id } });
    expect((await collect(saver.list(threadId))).map((t) => t.checkpoint.id)).toEqual(["0003", "0002", "0001"]);
    expect((await saver.get({ threadId, checkpointId: "0002" }))?.values).toEqual({ id: "0002" });
  });
});
