/** The clock lives in `@trellis/common` (what every layer shares); re-exported here. */
export { type Clock, ManualClock, systemClock } from "@trellis/common";
