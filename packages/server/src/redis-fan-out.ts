import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { EventHub, RunListener } from "./event-hub.js";
import type { QueueWake } from "./run-manager.js";
import type { StoredEvent } from "./run-store.js";

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

  constructor(options: { url: string; prefix?: string }) {
    this.#url = options.url;
    this.#key = `${options.prefix ?? "trellis:"}queue`;
    this.#pub = new Redis(options.url, { maxRetriesPerRequest: 3 });
  }

  async notify(): Promise<void> {
    await this.#pub.xadd(this.#key, "MAXLEN", "~", "1000", "*", "wake", "1");
  }

  listen(onWake: () => void): () => Promise<void> {
    const reader = new Redis(this.#url);
    const consumer = `worker-${randomUUID()}`;
    let stopped = false;
    const loop = (async () => {
      try {
        await reader.xgroup("CREATE", this.#key, "workers", "$", "MKSTREAM");
      } catch {
        // BUSYGROUP: the group exists
      }
      while (!stopped) {
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
      reader.disconnect();
      await loop;
    };
  }

  async close(): Promise<void> {
    this.#pub.disconnect();
  }
}
