import { describe, expect, it } from "vitest";
import { ManualClock } from "./clock.js";
import { MemoryStore } from "./memory-store.js";
import { describeStoreConformance } from "./testing/index.js";

describeStoreConformance({ name: "MemoryStore", create: (options) => new MemoryStore(options) });

describe("MemoryStore sweeping", () => {
  it("sweeps expired items on its own every sweepIntervalMinutes, and stops when closed", async () => {
    const clock = new ManualClock(0);
    const store = new MemoryStore({ clock, ttl: { sweepIntervalMinutes: 1 } });
    await store.put(["a"], "k", { a: 1 }, { ttl: 1 });
    await clock.advance(2 * 60_000);
    expect(await store.sweepExpired()).toBe(0); // the timer swept it already
    await store.close();
    expect(clock.pending).toBe(0);
  });
});
