import { describeSaverConformance } from "@trellis/checkpoint/testing";
import { afterAll } from "vitest";
import { RedisSaver } from "./redis-saver.js";
import { corruptRedisItem, deletePrefix, REDIS_URL, requireRedis, testPrefix } from "./redis-test-helpers.js";

const available = await requireRedis();
const keyPrefix = testPrefix();

afterAll(async () => {
  if (available) await deletePrefix(keyPrefix);
});

describeSaverConformance({
  name: "RedisSaver",
  skip: !available,
  nativeTtl: true,
  create: ({ clock }) => new RedisSaver({ url: REDIS_URL, keyPrefix, clock }),
  // A second connection: the racing-writer tests interleave real scripts on the server.
  peer: (_saver, { clock }) => new RedisSaver({ url: REDIS_URL, keyPrefix, clock }),
  corrupt: (saver, target) => corruptRedisItem(saver.client, saver.threadKey(target.threadId), target),
});
