import { type CheckpointSaver, jsonSerializer, type PutRequest } from "@trellis/checkpoint";
import { requirePostgres, requireRedis } from "@trellis/reliability";
import { describe, expect, it } from "vitest";
import { toolConversation } from "./conversation.js";
import { memoryHandle, postgresHandle, redisHandle, type SaverHandle, sqliteHandle } from "./saver-kinds.js";

const postgres = await requirePostgres();
const redis = await requireRedis();

const kinds: [string, boolean, () => SaverHandle][] = [
  ["MemorySaver", true, memoryHandle],
  ["SqliteSaver", true, sqliteHandle],
  ["PostgresSaver", postgres, postgresHandle],
  ["RedisSaver", redis, redisHandle],
];

const MiB = 1024 * 1024;

describe("a long tool-calling conversation stores O(n) bytes", () => {
  for (const [name, available, make] of kinds) {
    it.skipIf(!available)(`${name}: 200 rounds store less than 5× what 50 rounds store`, async () => {
      const fifty = await measure(make, 50, SNAPSHOT_EVERY);
      const twoHundred = await measure(make, 200, SNAPSHOT_EVERY);
      report(name, fifty, twoHundred, `snapshotEvery ${SNAPSHOT_EVERY}`);
      expect(fifty.messages).toBe(102);
      expect(twoHundred.messages).toBe(402);
      expect(twoHundred.bytes).toBeLessThan(5 * fifty.bytes);
      // The whole history costs little more than the final state itself (goal: within 1.25×).
      expect(fifty.bytes).toBeLessThan(1.25 * fifty.stateBytes);
      expect(twoHundred.bytes).toBeLessThan(1.25 * twoHundred.stateBytes);
    });
  }

  // With the core's default snapshot cadence (1000 deltas) a 401-step thread needs no second snapshot.
  it("MemorySaver with the core's default snapshot policy: 200 rounds < 5× 50 rounds", async () => {
    const fifty = await measure(memoryHandle, 50);
    const twoHundred = await measure(memoryHandle, 200);
    report("MemorySaver", fifty, twoHundred, "default snapshotEvery");
    expect(twoHundred.bytes).toBeLessThan(5 * fifty.bytes);
  });
});

/** Snapshot cadence for the linear-growth tests: long enough that 200 rounds need no re-snapshot. */
const SNAPSHOT_EVERY = 1024;

async function measure(make: () => SaverHandle, rounds: number, snapshotEvery?: number) {
  const handle = make();
  try {
    const puts: number[] = [];
    const saver = timed(handle.saver, puts);
    const threadId = `rounds-${rounds}`;
    const run = await converse(saver, rounds, threadId, snapshotEvery);
    const bytes = await handle.saver.storedBytes?.(threadId);
    if (bytes === undefined) throw new Error(`${handle.kind} cannot tell its stored bytes`);
    const getStateMs = await timeGetState(run.graph, threadId);
    const physical = await handle.physicalBytes(threadId);
    return { ...run, bytes, physical, putMs: median(puts), getStateMs };
  } finally {
    await handle.dispose();
  }
}

type Measured = Awaited<ReturnType<typeof measure>>;

function report(name: string, fifty: Measured, twoHundred: Measured, policy: string): void {
  const mib = (n: number) => `${(n / MiB).toFixed(2)} MiB`;
  const line = (m: Measured, rounds: number) =>
    `${rounds} rounds: ${mib(m.bytes)} stored for a ${mib(m.stateBytes)} final state (×${(m.bytes / m.stateBytes).toFixed(3)})` +
    `${m.physical === undefined ? "" : `, ${mib(m.physical)} on the medium`}` +
    `, put median ${m.putMs.toFixed(2)} ms, getState median ${m.getStateMs.toFixed(2)} ms`;
  console.log(
    `[storage] ${name} (${policy}) — ${line(fifty, 50)}; ${line(twoHundred, 200)}; growth ×${(twoHundred.bytes / fifty.bytes).toFixed(2)}`,
  );
}

async function converse(saver: CheckpointSaver, rounds: number, threadId: string, snapshotEvery?: number) {
  const { graph, input, recursionLimit } = toolConversation(rounds, saver, snapshotEvery);
  const result = await graph.invoke(input, { threadId, recursionLimit });
  const state = await graph.getState({ threadId });
  const stateBytes = Buffer.byteLength(jsonSerializer.serialize(state.values));
  return { graph, messages: (result.messages as unknown[]).length, stateBytes };
}

async function timeGetState(graph: { getState(c: { threadId: string }): Promise<unknown> }, threadId: string) {
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const start = performance.now();
    await graph.getState({ threadId });
    times.push(performance.now() - start);
  }
  return median(times);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The saver, with the duration of each put recorded. */
function timed(saver: CheckpointSaver, puts: number[]): CheckpointSaver {
  return {
    get: (ref) => saver.get(ref),
    async put(request: PutRequest) {
      const start = performance.now();
      await saver.put(request);
      puts.push(performance.now() - start);
    },
    putWrites: (ref, writes, lease) => saver.putWrites(ref, writes, lease),
    list: (threadId, options) => saver.list(threadId, options),
    deleteThread: (threadId) => saver.deleteThread(threadId),
    prune: (threadId, options) => saver.prune(threadId, options),
    setTtl: (threadId, ttl) => saver.setTtl(threadId, ttl),
    sweepExpired: () => saver.sweepExpired(),
    acquireLease: (threadId, owner, ttl) => saver.acquireLease(threadId, owner, ttl),
    renewLease: (lease, ttl) => saver.renewLease(lease, ttl),
    releaseLease: (lease) => saver.releaseLease(lease),
    storedBytes: (threadId) => saver.storedBytes?.(threadId) ?? Promise.resolve(0),
  };
}
