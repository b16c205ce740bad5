export {
  type CorruptionTarget,
  describeSaverConformance,
  type SaverConformanceOptions,
  type SaverTestContext,
  SUITE_EPOCH_MS,
} from "./conformance.js";
export { collect, latest, putStep, type StepSpec, stepRequest, uniqueThreadId } from "./fixtures.js";
export { type RequireServiceOptions, requireService } from "./require-service.js";
export {
  describeStoreConformance,
  type StoreConformanceOptions,
  type StoreTestContext,
  TEST_EMBEDDING_DIMS,
  testEmbedding,
} from "./store-conformance.js";
