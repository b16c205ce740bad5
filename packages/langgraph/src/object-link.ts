/**
 * A link from an object to a value that goes wherever the object goes and dies with it, cheaper than a
 * WeakMap entry: a private field stamped onto the object (a class whose base constructor returns the
 * object it is given, so the subclass's field initializer adds its private field to that object).
 * Private fields are invisible to every key listing, spread, `Object.assign`, JSON, `structuredClone`
 * and serializer, so a copy of the object is not linked. An object that cannot take one (frozen,
 * sealed, non-extensible) keeps its link in a WeakMap instead.
 *
 * Why not a WeakMap alone: the layer links each message and each messages list it converts (a few per
 * step), and on V8 every live WeakMap entry is an ephemeron each young-generation collection must
 * process — in the 50-round agent the collector took 27 % of the run; a stamp costs ~20 ns and the
 * collector nothing. @internal
 */
export class ObjectLink<T> {
  readonly #stamp: Stamp<T>;
  readonly #fallback = new WeakMap<object, T>();

  /** @example const plainOf = new ObjectLink<StoredMessage>(); */
  constructor() {
    this.#stamp = stampClass<T>();
  }

  /** The value linked to `object`, if any. */
  get(object: object): T | undefined {
    const value = this.#stamp.read(object);
    if (value !== undefined || Object.isExtensible(object)) return value;
    return this.#fallback.get(object);
  }

  /** Links `value` to `object` (replacing an earlier link). */
  set(object: object, value: T): void {
    if (!this.#stamp.write(object, value)) this.#fallback.set(object, value);
  }
}

interface Stamp<T> {
  /** The stamped value; undefined when `object` has no stamp. */
  read(object: object): T | undefined;
  /** Stamps `value` on `object` (or replaces its stamp); false when it cannot take one (not extensible). */
  write(object: object, value: T): boolean;
}

/** A constructor whose `new` gives back the object it was passed. */
type ReturnsArgument = new (object: object) => object;

/** A base "class" whose constructor returns the object passed to it. */
const Returning = function (this: unknown, object: object) {
  return object;
} as unknown as ReturnsArgument;

/** A class of its own per link: each one's private field is a separate slot. */
function stampClass<T>(): Stamp<T> {
  class Stamped extends Returning {
    #value: T;
    constructor(object: object, value: T) {
      super(object);
      this.#value = value;
    }
    static read(object: object): T | undefined {
      return #value in object ? (object as Stamped).#value : undefined;
    }
    static write(object: object, value: T): boolean {
      if (#value in object) (object as Stamped).#value = value;
      else if (Object.isExtensible(object)) new Stamped(object, value);
      else return false;
      return true;
    }
  }
  return Stamped;
}
