/**
 * `@trellis/server/redis`: the Redis event fan-out and queue wake-up of scale-out servers. A separate
 * entry so that importing `@trellis/server` never loads `ioredis`: install it only when you use Redis.
 *
 * @example
 * import { RedisEventHub } from "@trellis/server/redis";
 *
 * const hub = new RedisEventHub({ url: "redis://127.0.0.1:6379", prefix: "trellis:" });
 */
export { RedisEventHub, RedisQueueWake } from "./streams/redis-fan-out.js";
