import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blobChecksum, type CheckpointSaver, CorruptCheckpointError, type TrellisError } from "@trellis/checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { ledgerGraph } from "./fixtures/ledger-graph.js";
import { Ledger } from "./harness/ledger.js";
import { openRawStore, type RawRow, type RawStore } from "./harness/raw-store.js";
import { disposeTarget, newTarget, openSaver, type SaverKind } from "./harness/saver-targets.js";
import { requirePostgres, requireRedis } from "./harness/services.js";
import { verifyThread } from "./harness/verify-thread.js";

const available: Record<SaverKind, boolean> = {
  sqlite: true,
  postgres: await requirePostgres(),
  redis: await requireRedis(),
};
const dir = mkdtempSync(join(tmpdir(), "trellis-corruption-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Damage done to one thread: what it changes, and whether reads must fail with CORRUPT_CHECKPOINT. */
interface Damage {
  name: string;
  /** Reads of the thread fail with CORRUPT_CHECKPOINT (otherwise: the chain check reports it). */
  unreadable: boolean;
  apply(raw: RawStore, threadId: string): Promise<{ parentId?: string }>;
}

async function headBlob(raw: RawStore, threadId: string, channel: string): Promise<RawRow> {
  const [head] = await raw.rows(threadId, "checkpoint");
  const version = (JSON.parse(head?.body ?? "{}") as { channelVersions: Record<string, string> }).channelVersions[
    channel
  ];
  const blob = (await raw.rows(threadId, "blob")).find((b) => b.channel === channel && b.id === version);
  if (!blob) throw new Error(`no ${channel} blob at ${version}`);
  return blob;
}

const DAMAGES: Damage[] = [
  {
    name: "flipped bytes in the head checkpoint",
    unreadable: true,
    async apply(raw, threadId) {
      const [head] = await raw.rows(threadId, "checkpoint");
      const row = head as RawRow;
      const i = row.body.indexOf('"step"');
      await raw.update(threadId, row, `${row.body.slice(0, i + 1)}STEP${row.body.slice(i + 5)}`, row.sum);
      return {};
    },
  },
  {
    name: "a truncated value (checksum left as it was)",
    unreadable: true,
    async apply(raw, threadId) {
      const blob = await headBlob(raw, threadId, "log");
      await raw.update(threadId, blob, blob.body.slice(0, Math.floor(blob.body.length / 2)), blob.sum);
      return {};
    },
  },
  {
    name: "a truncated value with a matching checksum",
    unreadable: true,
    async apply(raw, threadId) {
      const blob = await headBlob(raw, threadId, "log");
      const body = blob.body.slice(0, Math.floor(blob.body.length / 2));
      await raw.update(threadId, blob, body, blobChecksum(blob.blobKind ?? "full", blob.base ?? null, body));
      return {};
    },
  },
  {
    name: "a dangling delta (the value it extends is gone)",
    unreadable: true,
    async apply(raw, threadId) {
      const blob = await headBlob(raw, threadId, "log");
      const base = (await raw.rows(threadId, "blob")).find((b) => b.channel === "log" && b.id === blob.base);
      if (!base) throw new Error("the head's log value is not a delta");
      await raw.remove(threadId, base);
      return {};
    },
  },
  {
    name: "a dangling parent (the head's parent checkpoint is gone)",
    unreadable: false,
    async apply(raw, threadId) {
      const [, parent] = await raw.rows(threadId, "checkpoint");
      await raw.remove(threadId, parent as RawRow);
      return { parentId: (parent as RawRow).id };
    },
  },
];

describe("a corrupted thread is detected and reported for that thread only", () => {
  for (const kind of ["sqlite", "postgres", "redis"] as const) {
    it.skipIf(!available[kind])(`${kind}: flipped bytes, truncated values, dangling deltas and parents`, async () => {
      const target = newTarget(kind, dir);
      const saver = openSaver(target);
      const raw = openRawStore(target);
      const ledger = Ledger.open(join(dir, `${kind}.ledger.db`));
      const graph = ledgerGraph({ saver, ledger, rounds: 2, point: async () => {} });
      const report: string[] = [];
      try {
        for (const [i, damage] of DAMAGES.entries()) {
          const sick = `sick-${i}`;
          const healthy = `healthy-${i}`;
          for (const threadId of [sick, healthy]) {
            expect((await graph.run({ log: [] }, { threadId })).status).toBe("done");
          }
          const rowsBefore = (await raw.rows(sick, "checkpoint")).length;
          const { parentId } = await damage.apply(raw, sick);

          if (damage.unreadable) {
            const error = await graph.getState({ threadId: sick }).catch((e: unknown) => e);
            expect(error, damage.name).toBeInstanceOf(CorruptCheckpointError);
            expect((error as TrellisError).code).toBe("CORRUPT_CHECKPOINT");
            expect((error as TrellisError).details.threadId).toBe(sick);
            expect((await verifyThread(saver, sick)).error?.code).toBe("CORRUPT_CHECKPOINT");
            // A run refuses to go on from it, and writes nothing over it.
            const run = await graph.run({ log: [] }, { threadId: sick });
            expect(run.status).toBe("error");
            expect(((run as { error: TrellisError }).error as TrellisError).code).toBe("CORRUPT_CHECKPOINT");
            expect((await raw.rows(sick, "checkpoint")).length).toBe(rowsBefore);
            report.push(`${damage.name}: CORRUPT_CHECKPOINT`);
          } else {
            const chain = await verifyThread(saver, sick);
            expect(chain.problems.join("\n"), damage.name).toMatch(/not linear|dangling parent/);
            // The head itself is intact; going back to the missing parent is a typed error.
            expect((await graph.getState({ threadId: sick })).values.log).toHaveLength(10);
            const travel = await graph.run(null, { threadId: sick, checkpointId: parentId as string });
            expect(travel.status).toBe("error");
            expect(((travel as { error: TrellisError }).error as TrellisError).code).toBe("CHECKPOINT_NOT_FOUND");
            report.push(`${damage.name}: chain check "${chain.problems[0]}", time travel CHECKPOINT_NOT_FOUND`);
          }
          await expectHealthy(graph, saver, healthy);
        }
        console.log(`[reliability] corruption ${kind}:\n  ${report.join("\n  ")}`);
      } finally {
        ledger.close();
        await raw.close();
        await saver.close?.();
        await disposeTarget(target);
      }
    });
  }
});

/** The other thread of the same storage reads, lists and runs as if nothing happened. */
async function expectHealthy(graph: ReturnType<typeof ledgerGraph>, saver: CheckpointSaver, threadId: string) {
  const chain = await verifyThread(saver, threadId);
  expect(chain.problems).toEqual([]);
  expect(chain.checkpoints).toHaveLength(7);
  expect((await graph.getState({ threadId })).values.log).toHaveLength(10);
  const next = await graph.run({ log: [] }, { threadId });
  expect(next.status).toBe("done");
}
