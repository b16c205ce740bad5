import type { CheckpointSaver } from "@trellis/checkpoint";
import { PostgresSaver } from "@trellis/checkpoint-postgres";
import { RedisSaver } from "@trellis/checkpoint-redis";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";

/** Where crash-worker.ts keeps its thread, as plain data so a worker process can open it too. */
export type CrashTarget =
  | { kind: "sqlite"; filename: string }
  | { kind: "postgres"; url: string; schema: string }
  | { kind: "redis"; url: string; keyPrefix: string };

/**
 * Opens a saver on `target`. With `isHolderDead: () => false` the saver judges no lease holder dead, as
 * a process of another host sees the lease: only its expiry frees the thread.
 *
 * @example
 * const elsewhere = openSaver(target, { isHolderDead: () => false });
 */
export function openSaver(target: CrashTarget, options: { isHolderDead?: () => boolean } = {}): CheckpointSaver {
  switch (target.kind) {
    case "sqlite":
      return new SqliteSaver({ filename: target.filename, ...options });
    case "postgres":
      return new PostgresSaver({ connectionString: target.url, schema: target.schema, ...options });
    case "redis":
      return new RedisSaver({ url: target.url, keyPrefix: target.keyPrefix, ...options });
  }
}
