import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { QueueWake } from "../runs/run-manager.js";
import type { StoredEvent } from "../stores/run-store.js";
import type { EventHub, RunListener } from "./event-hub.js";

/**
 * Live run events over Redis pub/sub, so an API process streams runs that a worker process executes.
 * Events are stored before they are published; a follower that missed some (it subscribed late) fills
 * the gap from the store.
 *
 * @example
 * const hub = new RedisEventHub({ url: "redis://127.0.0.1:6379", prefix: "trellis:" });
 */
export class RedisEventHub implements EventHub {
  readonly #pub: Redis;
  readonly #sub: Redis;
  readonly #prefix: string;
  readonly #listeners = new Map<string, Set<RunListener>>();

  constructor(options: { url: string; prefix?: string }) {
    this.#prefix = options.prefix ?? "trellis:";
    this.#pub = new Redis(options.url, { lazyConnect: false, maxRetriesPerRequest: 3 });
    this.#sub = new Redis(options.url, { lazyConnect: false });
    this.#sub.on("message", (channel: string, message: string) => {
      const runId = channel.slice(`${this.#prefix}run:`.length);
      const set = this.#listeners.get(runId);
      if (!set) return;
      const m = JSON.parse(message) as { e?: StoredEvent; end?: true };
      for (const l of [...set]) {
        if (m.e) l.event(m.e);
        else l.end();
      }
    });
  }

  #channel(runId: string): string {
    return `${this.#prefix}run:${runId}`;
  }

  publish(runId: string, event: StoredEvent): void {
    void this.#pub.publish(this.#channel(runId), JSON.stringify({ e: event })).catch(() => undefined);
  }

  end(runId: string): void {
    void this.#pub.publish(this.#channel(runId), JSON.stringify({ end: true })).catch(() => undefined);
  }

  subscribe(runId: string, listener: RunListener): () => void {
    let set = this.#listeners.get(runId);
    if (!set) {
      set = new Set();
      this.#listeners.set(runId, set);
      void this.#sub.subscribe(this.#channel(runId)).catch(() => undefined);
    }
    set.add(listener);
    return () => {
      const current = this.#listeners.get(runId);
      current?.delete(listener);
      if (current?.size === 0) {
        this.#listeners.delete(runId);
        void this.#sub.unsubscribe(this.#channel(runId)).catch(() => undefined);
      }
    };
  }

  async close(): Promise<void> {
    this.#sub.disconnect();
    this.#pub.disconnect();
  }
}

/**
 * Wake-ups for idle workers on a Redis Stream read through a consumer group: `notify` appends an entry,
 * each worker reads entries with XREADGROUP and acknowledges them once it looked at the queue. Delivery
 * is at least once; the queue itself is the runs table, so a lost or repeated wake-up costs at most one
 * heartbeat interval or one empty claim.
 *
 * @example
 * const wake = new RedisQueueWake({ url, prefix: "trellis:" });
 * const stop = wake.listen(() => manager.pump());
 */
export class RedisQueueWake implements QueueWake {
  readonly #url: string;
  readonly #key: string;
  readonly #pub: Redis;

  readonly #deadAfterMs: number;
  readonly #reclaimEveryMs: number;

  /**
   * `deadAfterMs` (default 5 minutes): a consumer silent this long is taken for dead; its pending
   * wake-ups are reclaimed and it is removed, every `reclaimEveryMs` (default 1 minute).
   */
  constructor(options: { url: string; prefix?: string; deadAfterMs?: number; reclaimEveryMs?: number }) {
    this.#url = options.url;
    this.#key = `${options.prefix ?? "trellis:"}queue`;
    this.#pub = new Redis(options.url, { maxRetriesPerRequest: 3 });
    this.#deadAfterMs = options.deadAfterMs ?? 5 * 60_000;
    this.#reclaimEveryMs = options.reclaimEveryMs ?? 60_000;
  }

  async notify(): Promise<void> {
    await this.#pub.xadd(this.#key, "MAXLEN", "~", "1000", "*", "wake", "1");
  }

  listen(onWake: () => void): () => Promise<void> {
    const reader = new Redis(this.#url);
    const consumer = `worker-${randomUUID()}`;
    let stopped = false;
    let nextReclaim = 0;
    const loop = (async () => {
      try {
        await reader.xgroup("CREATE", this.#key, "workers", "$", "MKSTREAM");
      } catch {
        // BUSYGROUP: the group exists
      }
      while (!stopped) {
        if (Date.now() >= nextReclaim) {
          nextReclaim = Date.now() + this.#reclaimEveryMs;
          await this.reclaim(reader, consumer).catch(() => undefined);
        }
        try {
          const got = (await reader.xreadgroup(
            "GROUP",
            "workers",
            consumer,
            "COUNT",
            "10",
            "BLOCK",
            "1000",
            "STREAMS",
            this.#key,
            ">",
          )) as Array<[string, Array<[string, string[]]>]> | null;
          const entries = got?.[0]?.[1] ?? [];
          if (entries.length) onWake();
          for (const [id] of entries) await reader.xack(this.#key, "workers", id);
        } catch {
          if (!stopped) await new Promise((r) => setTimeout(r, 500));
        }
      }
    })();
    return async () => {
      stopped = true;
      // leave the group: nothing is pending for this consumer (it acknowledges what it reads)
      await reader
        .xgroup("DELCONSUMER", this.#key, "workers", consumer)
        .catch(() => undefined)
        .finally(() => reader.disconnect());
      await loop;
    };
  }

  /**
   * Takes over the wake-ups that consumers of dead processes read but never acknowledged (pending for
   * longer than `deadAfterMs`, XAUTOCLAIM), acknowledges them, and removes consumers that have nothing
   * pending and were idle that long (XGROUP DELCONSUMER): the group does not keep a consumer per
   * process ever started. A live consumer removed this way is recreated by its next read. Returns how
   * many entries and consumers it cleaned up.
   */
  async reclaim(client: Redis = this.#pub, self = ""): Promise<{ entries: number; consumers: number }> {
    let entries = 0;
    let start = "0-0";
    for (let i = 0; i < 100; i++) {
      const [next, claimed] = (await client.xautoclaim(
        this.#key,
        "workers",
        self || "reclaimer",
        this.#deadAfterMs,
        start,
        "COUNT",
        100,
      )) as [string, Array<[string, string[]] | null>];
      const ids = claimed.filter((e): e is [string, string[]] => e !== null).map(([id]) => id);
      if (ids.length) await client.xack(this.#key, "workers", ...ids);
      entries += ids.length;
      if (next === "0-0") break;
      start = next;
    }
    let consumers = 0;
    const info = (await client.xinfo("CONSUMERS", this.#key, "workers")) as unknown[][];
    for (const row of info) {
      const fields = new Map<string, unknown>();
      for (let i = 0; i + 1 < row.length; i += 2) fields.set(String(row[i]), row[i + 1]);
      const name = String(fields.get("name"));
      if (name === self) continue;
      if (Number(fields.get("pending")) === 0 && Number(fields.get("idle")) > this.#deadAfterMs) {
        await client.xgroup("DELCONSUMER", this.#key, "workers", name);
        consumers++;
      }
    }
    return { entries, consumers };
  }

  async close(): Promise<void> {
    this.#pub.disconnect();
  }
}
