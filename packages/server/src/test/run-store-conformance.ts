/**
 * The run store contract as one suite, run against every implementation (the embedded SQLite store and
 * the scale-out Postgres one), as the savers share `describeSaverConformance`: threads, the queue and
 * its multitask strategies, claims and their fencing by attempt, requeue after a crash, events and
 * their replay, a run's end with its thread's status, cancel, retention, and the exclusive task lease.
 * A new run store passes this before the server may use it.
 */
import { describe } from "vitest";
import type { RunStore } from "../stores/run-store.js";
import { describeAttemptCases } from "./run-store-cases-attempts.js";
import { describeThreadAndQueueCases } from "./run-store-cases-queue.js";

/** How the suite opens a store: each call may return the same store; tests never rely on it being empty. */
export interface RunStoreKind {
  name: string;
  open: () => Promise<RunStore>;
  /** True when the store's service is missing (the caller has already said so loudly). */
  skip: boolean;
}

/**
 * Registers the run store conformance tests for each kind.
 *
 * @example
 * describeRunStoreConformance([{ name: "sqlite", open: async () => new SqliteRunStore(db), skip: false }]);
 */
export function describeRunStoreConformance(kinds: RunStoreKind[]): void {
  describe.each(kinds)("run store conformance ($name)", ({ open, skip }) => {
    describeThreadAndQueueCases(open, skip);
    describeAttemptCases(open, skip);
  });
}
