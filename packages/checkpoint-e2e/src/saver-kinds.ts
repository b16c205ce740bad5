import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CheckpointSaver, MemorySaver } from "@trellis/checkpoint";
import { PostgresSaver } from "@trellis/checkpoint-postgres";
import { RedisSaver } from "@trellis/checkpoint-redis";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { deleteKeys, dropSchema, POSTGRES_URL, REDIS_URL, runLabel } from "@trellis/reliability";

/** One saver under test, with what it costs on its medium and how to clean up. */
export interface SaverHandle {
  kind: string;
  saver: CheckpointSaver;
  /** What the medium really holds for the thread (file bytes, relation sizes, Redis memory), if known. */
  physicalBytes(threadId: string): Promise<number | undefined>;
  dispose(): Promise<void>;
}

export function memoryHandle(): SaverHandle {
  return { kind: "memory", saver: new MemorySaver(), physicalBytes: async () => undefined, dispose: async () => {} };
}

export function sqliteHandle(): SaverHandle {
  const dir = mkdtempSync(join(tmpdir(), "trellis-e2e-"));
  const filename = join(dir, "checkpoints.db");
  const saver = new SqliteSaver({ filename });
  return {
    kind: "sqlite",
    saver,
    async physicalBytes() {
      saver.database.pragma("wal_checkpoint(TRUNCATE)");
      saver.database.exec("VACUUM");
      return statSync(filename).size;
    },
    async dispose() {
      await saver.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postgresHandle(): SaverHandle {
  const schema = runLabel("pg");
  const saver = new PostgresSaver({ connectionString: POSTGRES_URL, schema });
  return {
    kind: "postgres",
    saver,
    async physicalBytes() {
      await saver.pool.query(`VACUUM FULL "${schema}".checkpoints, "${schema}".blobs, "${schema}".writes`);
      const { rows } = await saver.pool.query<{ bytes: string }>(
        `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
        [schema],
      );
      return Number(rows[0]?.bytes ?? 0);
    },
    async dispose() {
      await saver.close();
      await dropSchema(schema);
    },
  };
}

export function redisHandle(): SaverHandle {
  const keyPrefix = `${runLabel("redis")}:`;
  const saver = new RedisSaver({ url: REDIS_URL, keyPrefix });
  return {
    kind: "redis",
    saver,
    async physicalBytes(threadId) {
      const keys = await saver.client.keys(`${saver.threadKey(threadId).replace(/[{}*?[\]]/g, "\\$&")}*`);
      let bytes = 0;
      for (const key of keys) bytes += Number(await saver.client.memory("USAGE", key, "SAMPLES", 0));
      return bytes;
    },
    async dispose() {
      await saver.close();
      await deleteKeys(keyPrefix);
    },
  };
}
