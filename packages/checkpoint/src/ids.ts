/** The id generator lives in `@trellis/common` (what every layer shares); re-exported here. */
export { createIdGenerator } from "@trellis/common";
