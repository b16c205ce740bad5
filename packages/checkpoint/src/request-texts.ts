import { digest } from "./digest.js";
import { NEEDS_TAGS, NOT_PLAIN, type PlainWalkMemo, walkPlainData } from "./plain-walk.js";
import { jsonSerializer, type Serializer } from "./serializer.js";

/**
 * Texts at least this long are remembered per object, stand for themselves by key in a parent's key,
 * and get a key from {@link RequestTexts.serializeKeyed}; the savers store them once per thread
 * (`SHARED_BODY_MIN_LENGTH` is this). @internal
 */
export const LONG_TEXT_MIN_LENGTH = 1024;
/** Marks a member's key in the text a content key is taken of; JSON text never holds this character raw. */
const KEY_MARK = "\u0001";

/**
 * A serialized value with its content key (see {@link RequestTexts.serializeKeyed}).
 *
 * @example
 * const { text, key } = new RequestTexts(jsonSerializer).serializeKeyed(value);
 */
export interface KeyedText {
  text: string;
  /**
   * Equal for equal texts: SHA-256 (base64url) of the text, its long members' texts each replaced by
   * their key. `undefined` for a text shorter than 1,024 characters, which is kept inline anyway.
   */
  key: string | undefined;
}

/** What one serialized object left: its text, and its content key once asked for. */
interface Entry {
  obj: object;
  text: string;
  key: string | undefined;
  /** Whether the text was joined from its members' texts (else `JSON.stringify` wrote it whole). */
  joined: boolean;
}

/**
 * Serializes the values of one request (a put, a commit, a batch of writes) and reuses, within it, the
 * text of every object met again: a list holding one large dict k times, or the same dict held by
 * several channels and writes, costs the dict's text once; the other references reuse that string
 * (V8 joins strings without copying them). The text is exactly what the serializer alone returns.
 *
 * Only within one request: state values are not changed while a saver serializes them, but a node or a
 * reducer may change an object in place between two requests (unsupported, yet the stored text must
 * still say what the value was when it was stored), so nothing is remembered across requests.
 *
 * Reuse applies to {@link jsonSerializer} on values JSON carries alone (no Date, Map, Set, BigInt…);
 * other serializers and tagged values are serialized whole, as before.
 *
 * @example
 * const texts = new RequestTexts(jsonSerializer);
 * const a = texts.serialize([big, big]); // big's text is built once
 * const b = texts.serialize({ copy: big }); // and reused here
 */
export class RequestTexts {
  readonly #serde: Serializer;
  /** Made on first need: most requests hold a few small values. */
  #entries: Map<object, Entry> | undefined;
  /** The plain-data walk's findings, shared by the request's values: an object in several is walked once. */
  #walked: PlainWalkMemo = { map: undefined };

  constructor(serde: Serializer) {
    this.#serde = serde;
  }

  /** The text of `value`, as `serde.serialize(value)` returns it. */
  serialize(value: unknown): string {
    if (this.#serde !== jsonSerializer || value === null || typeof value !== "object") {
      return this.#serde.serialize(value);
    }
    const known = this.#entries?.get(value);
    if (known !== undefined) return known.text;
    const answer = walkPlainData(value, this.#walked);
    if (answer === NOT_PLAIN) {
      // A walk that failed leaves marks that would read as cycles: start afresh (the serializer
      // throws the detailed error, and the request fails).
      this.#walked = { map: undefined };
      return this.#serde.serialize(value);
    }
    // Tagged: the serializer's own way.
    if ((answer & NEEDS_TAGS) !== 0) return this.#serde.serialize(value);
    return this.#textOf(value, this.#walked.map);
  }

  /**
   * The text of `value` with a content key: equal texts have equal keys, different texts different
   * keys (short of a SHA-256 collision). A long text joined from members' texts is keyed from their
   * keys, so keying it reads each member's text once per request, not once per reference — comparing
   * or hashing the whole text would read every reference's copy.
   */
  serializeKeyed(value: unknown): KeyedText {
    const text = this.serialize(value);
    if (text.length < LONG_TEXT_MIN_LENGTH) return { text, key: undefined };
    const entry = value !== null && typeof value === "object" ? this.#entries?.get(value) : undefined;
    // Only objects this class wrote have an entry (a tagged value is the serializer's, whole).
    return { text, key: entry !== undefined ? this.#keyOf(entry) : digest("sha256", text) };
  }

  /**
   * The JSON text of a plain, untagged object. `answers` holds the walk's answer (height << 1 | tags)
   * of every object holding nested ones; objects holding only primitives, or objects nesting one level,
   * are handed to `JSON.stringify` whole, and deeper ones are joined from their members' texts, so an
   * object met again is written once. Matches `JSON.stringify` exactly on such values: own enumerable
   * keys in `Object.keys` order, and nothing in them that JSON drops or converts (the walk said no tags).
   */
  #textOf(obj: object, answers: Map<object, number> | undefined): string {
    const known = this.#entries?.get(obj);
    if (known !== undefined) return known.text;
    const answer = answers?.get(obj);
    const joined = answer !== undefined && answer >> 1 >= 2;
    const text = joined
      ? joinMembers(obj, (item) =>
          item !== null && typeof item === "object" ? this.#textOf(item, answers) : JSON.stringify(item),
        )
      : JSON.stringify(obj);
    // Short texts are remembered too when joined: the key of their parent needs their members.
    if (text.length >= LONG_TEXT_MIN_LENGTH || joined) {
      this.#entries ??= new Map();
      this.#entries.set(obj, { obj, text, key: undefined, joined });
    }
    return text;
  }

  /** The content key of a remembered object's text (made once per request). */
  #keyOf(entry: Entry): string {
    if (entry.key !== undefined) return entry.key;
    if (!entry.joined) {
      entry.key = digest("sha256", entry.text);
      return entry.key;
    }
    // The text again, each long member's text replaced by KEY_MARK and its key (fixed length): equal
    // texts give equal strings here, and different texts different ones, as the members' keys do.
    const keyed = joinMembers(entry.obj, (item) => {
      const child = item !== null && typeof item === "object" ? this.#entries?.get(item) : undefined;
      if (child === undefined) return JSON.stringify(item);
      return child.text.length < LONG_TEXT_MIN_LENGTH ? child.text : KEY_MARK + this.#keyOf(child);
    });
    entry.key = digest("sha256", keyed);
    return entry.key;
  }
}

/**
 * The JSON text of an array or record whose members' texts `member` gives: brackets, commas and keys as
 * `JSON.stringify` writes them (own enumerable keys, `Object.keys` order).
 */
function joinMembers(obj: object, member: (item: unknown) => string): string {
  if (Array.isArray(obj)) {
    let text = "[";
    for (let i = 0; i < obj.length; i++) {
      if (i > 0) text += ",";
      text += member(obj[i]);
    }
    return `${text}]`;
  }
  const record = obj as Record<string, unknown>;
  const keys = Object.keys(record);
  let text = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (i > 0) text += ",";
    text += `${JSON.stringify(key)}:${member(record[key])}`;
  }
  return `${text}}`;
}
