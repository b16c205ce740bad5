import { digest } from "./digest.js";
import { LONG_TEXT_MIN_LENGTH, RequestTexts } from "./request-texts.js";
import type { Serializer } from "./serializer.js";

/**
 * Serialized values at least this many characters long are stored once per thread, under their
 * content key ({@link bodyRef}), and referenced by every row that holds them: a value passed from key
 * to key, written again unchanged, or both recorded as a pending write and stored as the channel's
 * value. Shorter ones stay inline in their row, where a reference would cost more than the text.
 *
 * @example
 * const shared = text.length >= SHARED_BODY_MIN_LENGTH; // stored in the thread's bodies, by content key
 */
export const SHARED_BODY_MIN_LENGTH = LONG_TEXT_MIN_LENGTH;

/**
 * The content key of a stored body: SHA-256 of the text, base64url (43 characters). Two rows of one
 * thread with the same key hold the same text, so the saver keeps it once.
 *
 * @example
 * bodyRef('{"a":1}') === bodyRef('{"a":1}'); // true
 */
export function bodyRef(text: string): string {
  return digest("sha256", text);
}

/**
 * A serialized value: its text, and its content key when the text is long enough to be shared.
 *
 * @example
 * const { body, ref }: EncodedBody = new BodyEncoder(jsonSerializer).encode(value);
 */
export interface EncodedBody {
  body: string;
  /** {@link bodyRef} of `body` when it is at least {@link SHARED_BODY_MIN_LENGTH} long, else `null`. */
  ref: string | null;
}

/**
 * Serializes the values of one request (a put, a commit): an object that appears several times in it
 * — the same list written to two channels, a node's update that is also the channel's new value — is
 * serialized and hashed once, and an object nested in several values, or several times in one, is
 * written once (see {@link RequestTexts}). Only within one request: state values are never changed in
 * place while a saver serializes them, but a caller may change its objects between runs.
 *
 * @example
 * const bodies = new BodyEncoder(jsonSerializer);
 * const rows = encodeBlobs(jsonSerializer, request.blobs, bodies);
 * const writes = encodeWrites(jsonSerializer, request.writes ?? [], bodies);
 */
export class BodyEncoder {
  readonly #texts: RequestTexts;
  readonly #seen = new Map<object, EncodedBody>();

  constructor(serde: Serializer) {
    this.#texts = new RequestTexts(serde);
  }

  /** The text of `value` and, when it is long, its content key. */
  encode(value: unknown): EncodedBody {
    const isObject = typeof value === "object" && value !== null;
    if (isObject) {
      const known = this.#seen.get(value);
      if (known) return known;
    }
    const body = this.#texts.serialize(value);
    const encoded = { body, ref: body.length >= SHARED_BODY_MIN_LENGTH ? bodyRef(body) : null };
    if (isObject) this.#seen.set(value, encoded);
    return encoded;
  }
}
