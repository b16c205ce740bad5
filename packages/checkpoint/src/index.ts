export { type Clock, ManualClock, systemClock } from "./clock.js";
export { commitThread } from "./commit.js";
export { rebuildChannelValue, rebuildFromChain, type StoredBlob } from "./delta.js";
export {
  CorruptCheckpointError,
  isTrellisErrorCode,
  LeaseError,
  TRELLIS_ERROR_CODES,
  TrellisError,
  type TrellisErrorCode,
  writesTargetMissing,
} from "./errors.js";
export { currentHolder, isLocalHolderDead, processLeaseOwner } from "./holder.js";
export { createIdGenerator } from "./ids.js";
export {
  ItemStore,
  type ItemStoreOptions,
  type StoreBackend,
  type StoreCursor,
  type StoreRow,
  type StoreScanOptions,
} from "./item-store.js";
export {
  assertLeaseCurrent,
  type HolderCheck,
  type LeaseHolder,
  leaseOwnerOf,
  nextLease,
  parseLeaseOwner,
} from "./lease.js";
export { hasLeaseExecutionEnded, startLeaseExecution } from "./lease-executions.js";
export { MemorySaver, type MemorySaverOptions, matchesFilter } from "./memory-saver.js";
export { MemoryStore, type MemoryStoreOptions } from "./memory-store.js";
export { describeNonPlainData, MAX_PLAIN_DATA_DEPTH } from "./plain-data.js";
export { NEEDS_TAGS, NOT_PLAIN, type PlainWalkMemo, walkPlainData } from "./plain-walk.js";
export {
  type BlobRow,
  blobChecksum,
  type CheckpointRow,
  decodeBlob,
  decodeCheckpoint,
  decodeWrite,
  encodeBlobs,
  encodeCheckpoint,
  encodeWrites,
  type RowLocation,
  rebuildValues,
  type WriteRow,
  writeChecksum,
} from "./row-codec.js";
export type { CheckpointSaver } from "./saver.js";
export { checksum, jsonSerializer, type Serializer } from "./serializer.js";
export { BodyEncoder, bodyRef, type EncodedBody, SHARED_BODY_MIN_LENGTH } from "./shared-bodies.js";
export type {
  SearchItem,
  Store,
  StoreFilter,
  StoreGetOptions,
  StoreIndexConfig,
  StoreItem,
  StoreListNamespacesOptions,
  StorePutOptions,
  StoreSearchOptions,
  StoreTtlConfig,
} from "./store.js";
export { conditionFilter, type SplitStoreFilter, type StoreCondition, splitStoreFilter } from "./store-conditions.js";
export { cosine, textsAt } from "./store-embedding.js";
export {
  checkFilter,
  checkNamespace,
  joinNamespace,
  listNamespacesOf,
  matchesStoreFilter,
  nulAt,
  STORE_BOUNDS,
  splitStoredNamespace,
  underPrefix,
} from "./store-rules.js";
export {
  CHECKPOINT_FORMAT_VERSION,
  type ChannelBlob,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointRef,
  type CheckpointSource,
  type CheckpointTuple,
  type CommitRequest,
  type Lease,
  type LeasedTuple,
  type ListOptions,
  type PendingWrite,
  type PlannedTask,
  type PutRequest,
} from "./types.js";
