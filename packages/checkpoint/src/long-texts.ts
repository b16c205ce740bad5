import { digest } from "./digest.js";
import { SHARED_BODY_MIN_LENGTH } from "./shared-bodies.js";

/**
 * One thread's long texts, each kept once: the first row to hold a text keeps it, later rows with an
 * equal text share that string (the new one is left to the collector). Short texts are kept as they
 * are.
 *
 * Found by content key (`RequestTexts.serializeKeyed`): a `Map` keyed by the text itself would hash
 * every character of every new text, and comparing texts joined from pieces walks the pieces one
 * character at a time — megabytes per step for a wide state — where the key of a text joined from
 * its members reads each member once per request.
 *
 * @example
 * const texts = new LongTexts();
 * const kept = texts.keep(body, key); // body, or the equal string kept before
 */
export class LongTexts {
  #byKey = new Map<string, string>();

  /** The kept copy of `text`, whose content key is `key` (default: SHA-256 of the text). */
  keep(text: string, key?: string): string {
    if (text.length < SHARED_BODY_MIN_LENGTH) return text;
    const k = key ?? digest("sha256", text);
    const kept = this.#byKey.get(k);
    if (kept !== undefined) return kept;
    this.#byKey.set(k, text);
    return text;
  }

  /**
   * Forgets the texts not in `held` (the ones rows still hold, which are kept copies: found by
   * reference, so their keys are not made again).
   */
  retain(held: Iterable<string>): void {
    const byLength = new Map<number, string[]>();
    for (const text of held) {
      if (text.length < SHARED_BODY_MIN_LENGTH) continue;
      const same = byLength.get(text.length);
      if (same) same.push(text);
      else byLength.set(text.length, [text]);
    }
    const next = new Map<string, string>();
    for (const [key, text] of this.#byKey) {
      // The same string, so `===` answers without reading it.
      if (byLength.get(text.length)?.some((h) => h === text)) next.set(key, text);
    }
    this.#byKey = next;
  }

  /** Every text kept, once each. */
  values(): Iterable<string> {
    return this.#byKey.values();
  }
}
