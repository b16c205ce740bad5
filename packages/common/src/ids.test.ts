import { describe, expect, it } from "vitest";
import type { Clock } from "./clock.js";
import { createIdGenerator } from "./ids.js";

/** A clock set by hand, which may step back. */
function handClock(ms: number): Clock & { ms: number } {
  return {
    ms,
    now() {
      return this.ms;
    },
    setTimeout: () => undefined,
    clearTimeout: () => undefined,
  };
}

describe("createIdGenerator", () => {
  it("ids sort in the order they were made while the clock stands still, moves and steps back", () => {
    const clock = handClock(1_000);
    const nextId = createIdGenerator(clock);
    const ids: string[] = [];
    let last: string | undefined;
    for (const step of [0, 0, 5, 0, -3, -100, 7, 0]) {
      clock.ms += step;
      last = nextId(last);
      ids.push(last);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("an id made after another generator's sorts after it, and so do the ones that follow", () => {
    const ahead = handClock(50_000);
    const behind = handClock(1_000);
    const other = createIdGenerator(ahead);
    const nextId = createIdGenerator(behind);
    const theirs = other();
    const mine = nextId(theirs);
    expect(mine > theirs).toBe(true);
    expect(mine.slice(0, 12)).toBe(theirs.slice(0, 12));
    expect(nextId(mine) > mine).toBe(true);
    expect(nextId() > mine).toBe(true);
  });

  it("the 65,537th id in one millisecond moves to the next millisecond", () => {
    const clock = handClock(2_000);
    const nextId = createIdGenerator(clock);
    let id = nextId();
    for (let i = 0; i < 0x10000; i++) {
      const next = nextId(id);
      expect(next > id).toBe(true);
      id = next;
    }
    expect(Number.parseInt(id.slice(0, 12), 16)).toBe(2_001);
    expect(id.slice(12, 16)).toBe("0000");
  });

  it("ids are 32 hex digits: 12 of milliseconds, 4 of counter, 16 random per generator", () => {
    const nextId = createIdGenerator(handClock(0xabc));
    const [a, b] = [nextId(), nextId()];
    expect(a).toMatch(/^000000000abc0000[0-9a-f]{16}$/);
    expect(b).toMatch(/^000000000abc0001[0-9a-f]{16}$/);
    expect(a.slice(16)).toBe(b.slice(16));
  });
});
