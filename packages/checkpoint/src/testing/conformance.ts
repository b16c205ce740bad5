import { afterEach, beforeEach, describe } from "vitest";
import { ManualClock } from "../clock.js";
import { createIdGenerator } from "../ids.js";
import type { CheckpointSaver } from "../saver.js";
import { basicCases } from "./cases-basic.js";
import { deltaCases } from "./cases-deltas.js";
import { foldCases } from "./cases-fold.js";
import { integrityCases } from "./cases-integrity.js";
import { leaseCases } from "./cases-leases.js";
import { retentionCases } from "./cases-retention.js";
import { sharedValueCases } from "./cases-shared.js";

/**
 * Which stored row {@link SaverConformanceOptions.corrupt} should damage.
 *
 * @example
 * corrupt: (saver, { threadId, checkpointId, row }) => flipOneLetterOf(row, threadId, checkpointId),
 */
export interface CorruptionTarget {
  threadId: string;
  namespace: string;
  checkpointId: string;
  /**
   * The checkpoint row itself, one of its channel values, one of its pending writes, or (`shared`) a
   * long value the thread stores once for every row that holds it (the suite stores one there first).
   */
  row: "checkpoint" | "blob" | "write" | "shared";
}

/**
 * What the suite needs to know about a saver.
 *
 * @example
 * const options: SaverConformanceOptions<SqliteSaver> = {
 *   name: "SqliteSaver",
 *   create: ({ clock }) => new SqliteSaver({ filename: ":memory:", clock }),
 * };
 */
export interface SaverConformanceOptions<S extends CheckpointSaver = CheckpointSaver> {
  /** Shown in the test names. */
  name: string;
  /** A fresh saver for one test. It must read time from `clock` (leases, TTLs). */
  create(context: { clock: ManualClock }): S | Promise<S>;
  /** Releases what `create` made. Defaults to `saver.close()`. */
  destroy?(saver: S): void | Promise<void>;
  /**
   * Opens a second saver on the same storage (another connection, file handle or client), so the
   * concurrent-writer tests race two real writers. Without it they race two callers of one saver.
   */
  peer?(saver: S, context: { clock: ManualClock }): CheckpointSaver | Promise<CheckpointSaver>;
  /**
   * Damages one stored row behind the saver's back (flips a character, keeps the checksum), so the
   * suite can check that corruption is detected. Without it those tests are skipped.
   */
  corrupt?(saver: S, target: CorruptionTarget): void | Promise<void>;
  /** The store expires threads itself (Redis): `sweepExpired` may return 0. */
  nativeTtl?: boolean;
  /** Skip the whole suite, e.g. when the service is unreachable (see `requireService`). */
  skip?: boolean;
}

/**
 * What each test case reaches through; the getters read the current test's saver.
 *
 * @example
 * it("puts", async () => { await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 } }); });
 */
export interface SaverTestContext {
  readonly saver: CheckpointSaver;
  readonly clock: ManualClock;
  /** Time-sortable checkpoint ids from the test's clock. */
  nextId(): string;
  /** A second writer on the same storage (or the same saver when the suite was given no `peer`). */
  peer(): Promise<CheckpointSaver>;
  readonly options: SaverConformanceOptions<CheckpointSaver>;
}

/**
 * Start of the suite's manual clock: 2030-01-01.
 *
 * @example
 * new ManualClock(SUITE_EPOCH_MS);
 */
export const SUITE_EPOCH_MS = Date.UTC(2030, 0, 1);

/**
 * Declares the conformance suite for a checkpoint saver: every contract method, namespaces, pending
 * writes, history and forks over delta chains, pruning, TTL on a manual clock, leases with racing and
 * stale writers, corruption detection, serializer round-trips, and values shared by several rows stored
 * once. Every saver must pass it.
 *
 * @example
 * import { describeSaverConformance } from "@trellis/checkpoint/testing";
 * import { MemorySaver } from "@trellis/checkpoint";
 *
 * describeSaverConformance({ name: "MemorySaver", create: ({ clock }) => new MemorySaver({ clock }) });
 */
export function describeSaverConformance<S extends CheckpointSaver>(options: SaverConformanceOptions<S>): void {
  const opts = options as unknown as SaverConformanceOptions<CheckpointSaver>;
  const describeIt = options.skip ? describe.skip : describe;
  describeIt(`${options.name} — saver conformance`, () => {
    let current: { saver: CheckpointSaver; clock: ManualClock; nextId: () => string } | undefined;
    const peers: CheckpointSaver[] = [];

    beforeEach(async () => {
      const clock = new ManualClock(SUITE_EPOCH_MS);
      const saver = await opts.create({ clock });
      current = { saver, clock, nextId: createIdGenerator(clock) };
    });

    afterEach(async () => {
      for (const peer of peers.splice(0)) await peer.close?.();
      const saver = current?.saver;
      current = undefined;
      if (!saver) return;
      if (opts.destroy) await opts.destroy(saver);
      else await saver.close?.();
    });

    const ctx: SaverTestContext = {
      get saver() {
        return need().saver;
      },
      get clock() {
        return need().clock;
      },
      nextId: () => need().nextId(),
      async peer() {
        const { saver, clock } = need();
        if (!opts.peer) return saver;
        const peer = await opts.peer(saver, { clock });
        peers.push(peer);
        return peer;
      },
      options: opts,
    };

    function need() {
      if (!current) throw new Error("saver conformance: no saver (used outside a test?)");
      return current;
    }

    describe("checkpoints and writes", () => basicCases(ctx));
    describe("delta chains, forks and pruning", () => deltaCases(ctx));
    describe("shared values stored once", () => sharedValueCases(ctx));
    describe("retention", () => retentionCases(ctx));
    describe("leases", () => leaseCases(ctx));
    describe("folded transactions (optional)", () => foldCases(ctx));
    describe("integrity", () => integrityCases(ctx));
  });
}
