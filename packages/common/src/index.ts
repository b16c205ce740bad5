/**
 * `@trellis/common`: what every Trellis layer shares, below the storage contract — the error class with
 * its code union, the injected clock and the time-sortable id generator. HTTP statuses are the server's
 * (`httpStatusOf` in `@trellis/server`).
 */
export { type Clock, ManualClock, systemClock } from "./clock.js";
export {
  isTrellisErrorCode,
  TRELLIS_ERROR_CODES,
  TrellisError,
  type TrellisErrorCode,
} from "./errors.js";
export { createIdGenerator } from "./ids.js";
