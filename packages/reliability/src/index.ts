export {
  CrashDriver,
  type CrashDriverOptions,
  type WorkerExit,
  type WorkerHandle,
  type WorkerMessage,
} from "./harness/crash-driver.js";
export { type CutRule, FaultProxy } from "./harness/fault-proxy.js";
export {
  auditValues,
  effectsAfterRecord,
  Ledger,
  type LedgerEntry,
  type LedgerKind,
  rerunsAfterDurable,
} from "./harness/ledger.js";
export { observeSaver, type SaverHooks } from "./harness/observed-saver.js";
export {
  disposeTarget,
  newTarget,
  openSaver,
  type SaverKind,
  type SaverTarget,
} from "./harness/saver-targets.js";
export {
  deleteKeys,
  dropSchema,
  POSTGRES_URL,
  REDIS_URL,
  requirePostgres,
  requireRedis,
  runLabel,
} from "./harness/services.js";
export { type ThreadReport, verifyThread } from "./harness/verify-thread.js";
export { type PointJob, points, readJob, runWorker, tell } from "./harness/worker-side.js";
