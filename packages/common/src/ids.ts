import { randomBytes } from "node:crypto";
import { type Clock, systemClock } from "./clock.js";

/**
 * Creates a generator of time-sortable ids: 12 hex digits of milliseconds, 4 of a per-millisecond
 * counter, 16 random per generator. Ids made later by the same generator always sort after earlier ones, even when
 * the clock stands still or steps back. Pass `after` (an id made by any generator, e.g. the parent
 * checkpoint's) to get an id that sorts after it too: another process's clock may be behind, or two
 * generators may share a millisecond.
 *
 * @example
 * const nextId = createIdGenerator();
 * nextId() < nextId(); // true
 * nextId(otherId) > otherId; // true
 */
export function createIdGenerator(clock: Clock = systemClock): (after?: string) => string {
  let lastMs = -1;
  let counter = 0;
  // The last id made, and the hex of its millisecond: a run passes its previous checkpoint's id as
  // `after`, which is usually this generator's last id (nothing to parse) in the same millisecond.
  let lastId = "";
  let prefixMs = -1;
  let prefix = "";
  // One random tail per generator keeps ids unique across processes without paying for randomness per id.
  const tail = randomBytes(8).toString("hex");
  return (after) => {
    if (after !== undefined && after !== lastId && ID_HEAD.test(after)) {
      const afterMs = Number.parseInt(after.slice(0, 12), 16);
      const afterCounter = Number.parseInt(after.slice(12, 16), 16);
      if (afterMs > lastMs || (afterMs === lastMs && afterCounter >= counter)) {
        lastMs = afterMs;
        counter = afterCounter;
      }
    }
    let ms = clock.now();
    if (ms <= lastMs) {
      ms = lastMs;
      counter++;
      if (counter > 0xffff) {
        ms = lastMs + 1;
        counter = 0;
      }
    } else {
      counter = 0;
    }
    lastMs = ms;
    if (ms !== prefixMs) {
      prefix = ms.toString(16).padStart(12, "0");
      prefixMs = ms;
    }
    lastId = prefix + (counter === 0 ? "0000" : counter.toString(16).padStart(4, "0")) + tail;
    return lastId;
  };
}

const ID_HEAD = /^[0-9a-f]{16}/;
