import { randomBytes } from "node:crypto";
import { type Clock, systemClock } from "./clock.js";

/**
 * Creates a generator of time-sortable ids: 12 hex digits of milliseconds, 4 of a per-millisecond
 * counter, 16 random per generator. Ids made later by the same generator always sort after earlier ones, even when
 * the clock stands still or steps back.
 *
 * @example
 * const nextId = createIdGenerator();
 * nextId() < nextId(); // true
 */
export function createIdGenerator(clock: Clock = systemClock): () => string {
  let lastMs = -1;
  let counter = 0;
  // One random tail per generator keeps ids unique across processes without paying for randomness per id.
  const tail = randomBytes(8).toString("hex");
  return () => {
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
    return ms.toString(16).padStart(12, "0") + counter.toString(16).padStart(4, "0") + tail;
  };
}
