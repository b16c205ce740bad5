import { rmSync } from "node:fs";
import { join } from "node:path";
import type { CheckpointSaver } from "@trellis/checkpoint";
import { PostgresSaver } from "@trellis/checkpoint-postgres";
import { RedisSaver } from "@trellis/checkpoint-redis";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { deleteKeys, dropSchema, POSTGRES_URL, REDIS_URL, runLabel } from "./services.js";

/**
 * Where a scenario's checkpoints live, as plain data so a worker process can open the same storage.
 *
 * @example
 * const target: SaverTarget = { kind: "postgres", url: POSTGRES_URL, schema: runLabel("crash") };
 */
export type SaverTarget =
  | { kind: "sqlite"; filename: string }
  | { kind: "postgres"; url: string; schema: string }
  | { kind: "redis"; url: string; keyPrefix: string };

/** The three durable savers. */
export type SaverKind = SaverTarget["kind"];

/**
 * A fresh target of `kind` that no other run uses: a file in `dir`, a schema, or a key prefix.
 *
 * @example
 * const target = newTarget("redis", dir);
 */
export function newTarget(kind: SaverKind, dir: string): SaverTarget {
  switch (kind) {
    case "sqlite":
      return { kind, filename: join(dir, `${runLabel("sqlite")}.db`) };
    case "postgres":
      return { kind, url: POSTGRES_URL, schema: runLabel("pg") };
    case "redis":
      return { kind, url: REDIS_URL, keyPrefix: `${runLabel("redis")}:` };
  }
}

/**
 * Opens a saver on `target`; `url` overrides the service address (e.g. a {@link FaultProxy}'s).
 *
 * @example
 * const saver = openSaver(target);
 */
export function openSaver(
  target: SaverTarget,
  options: { url?: string; applicationName?: string } = {},
): CheckpointSaver {
  switch (target.kind) {
    case "sqlite":
      return new SqliteSaver({ filename: target.filename, busyTimeoutMs: 10_000 });
    case "postgres":
      return new PostgresSaver({
        connectionString: options.url ?? target.url,
        schema: target.schema,
        poolConfig: { max: 4, ...(options.applicationName ? { application_name: options.applicationName } : {}) },
      });
    case "redis":
      return new RedisSaver({ url: options.url ?? target.url, keyPrefix: target.keyPrefix });
  }
}

/**
 * Removes everything a target holds: the file (and its WAL), the schema, or the keys.
 *
 * @example
 * afterAll(() => disposeTarget(target));
 */
export async function disposeTarget(target: SaverTarget): Promise<void> {
  switch (target.kind) {
    case "sqlite":
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${target.filename}${suffix}`, { force: true });
      return;
    case "postgres":
      return dropSchema(target.schema);
    case "redis":
      await deleteKeys(target.keyPrefix);
      return;
  }
}
