import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { CheckpointSaver } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import type { ResolvedConfig } from "../config/config.js";
import { takeDataFileLock } from "../operations/data-file-lock.js";
import { importOptional } from "../operations/optional-module.js";
import { DEFAULT_HEARTBEAT_MS, DEFAULT_ORPHAN_AFTER_MS, type QueueWake } from "../runs/run-manager.js";
import { type EventHub, LocalEventHub } from "../streams/event-hub.js";
import type { RunStore } from "./run-store.js";
import { SqliteRunStore } from "./sqlite/sqlite-run-store.js";

/**
 * What a server stores in and publishes through: the checkpoint saver, the run store beside it, the
 * event hub (local, or Redis in scale-out) and the queue's wake-up; `shared` when several processes
 * share the database (heartbeats decide which runs are orphaned). @internal
 */
export interface Storage {
  saver: CheckpointSaver;
  store: RunStore;
  hub: EventHub;
  wake?: QueueWake;
  shared?: { heartbeatMs: number; orphanAfterMs: number };
  close(): Promise<void>;
}

/** The Redis fan-out, loaded only for a `redis` queue: a SQLite project never needs ioredis. */
async function openRedis(queue: ResolvedConfig["queue"]) {
  if (queue.kind !== "redis") return undefined;
  const { RedisEventHub, RedisQueueWake } = await importOptional(() => import("../streams/redis-fan-out.js"), {
    feature: 'the "redis" queue',
    packages: ["ioredis"],
  });
  return {
    hub: new RedisEventHub({ url: queue.url, ...(queue.prefix ? { prefix: queue.prefix } : {}) }),
    wake: new RedisQueueWake({ url: queue.url, ...(queue.prefix ? { prefix: queue.prefix } : {}) }),
  };
}

/** The PostgreSQL saver and run store, loaded only when the config names them: a SQLite project never installs pg. */
async function loadPostgres() {
  const needs = { feature: 'the "postgres" saver', packages: ["@trellis/checkpoint-postgres", "pg"] };
  const { PostgresSaver } = await importOptional(() => import("@trellis/checkpoint-postgres"), needs);
  const { POSTGRES_SESSION_OPTIONS, PostgresRunStore } = await importOptional(
    () => import("./postgres/postgres-run-store.js"),
    needs,
  );
  return { PostgresSaver, POSTGRES_SESSION_OPTIONS, PostgresRunStore };
}

/**
 * Opens the saver and run store a config names (SQLite: the data file, locked to this process;
 * Postgres: its schema), and the Redis fan-out for a `redis` queue. Drivers load only when named.
 *
 * @example
 * const storage = await openStorage(resolveConfig(config, process.env));
 * await storage.store.requeueOrphans();
 * @internal
 */
export async function openStorage(config: ResolvedConfig): Promise<Storage> {
  const queue = config.queue;
  // the drivers load before any connection opens, so a missing one leaves nothing to close
  const postgres = config.saver.kind === "postgres" ? await loadPostgres() : undefined;
  const redis = await openRedis(queue);
  const closeRedis = async () => {
    await redis?.hub.close();
    await redis?.wake.close();
  };
  if (config.saver.kind === "sqlite") {
    if (config.saver.path !== ":memory:") mkdirSync(dirname(config.saver.path), { recursive: true });
    // one serving process per data file: refuses to start while another live server holds it
    const lock =
      config.saver.path === ":memory:" ? undefined : await takeDataFileLock(config.saver.path, { log: console.log });
    const saver = new SqliteSaver({ filename: config.saver.path });
    const store = new SqliteRunStore(saver.database);
    const close = async () => {
      await closeRedis();
      await lock?.release();
    };
    return { saver, store, hub: redis?.hub ?? new LocalEventHub(), close };
  }
  const { PostgresSaver, POSTGRES_SESSION_OPTIONS, PostgresRunStore } = postgres ?? (await loadPostgres());
  const saver = new PostgresSaver({
    connectionString: config.saver.url,
    // a stalled process (SIGSTOP, a paused VM) cannot hold locks past a few seconds
    poolConfig: { options: POSTGRES_SESSION_OPTIONS },
    ...(config.saver.schema ? { schema: config.saver.schema } : {}),
  });
  await saver.setup();
  const store = new PostgresRunStore({
    pool: saver.pool,
    ...(config.saver.schema ? { schema: config.saver.schema } : {}),
  });
  await store.setup();
  const storage: Storage = {
    saver,
    store,
    hub: redis?.hub ?? new LocalEventHub(),
    // several processes may share the database: heartbeats decide which runs are orphaned
    shared: {
      heartbeatMs: (queue.kind === "redis" ? queue.heartbeatMs : undefined) ?? DEFAULT_HEARTBEAT_MS,
      orphanAfterMs: (queue.kind === "redis" ? queue.orphanAfterMs : undefined) ?? DEFAULT_ORPHAN_AFTER_MS,
    },
    close: closeRedis,
  };
  if (redis) storage.wake = redis.wake;
  return storage;
}
