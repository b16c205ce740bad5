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
    const stamp = this.#stamp;
    if (stamp.has(object)) return stamp.read(object);
    return Object.isExtensible(object) ? undefined : this.#fallback.get(object);
  }

  /** Links `value` to `object` (replacing an earlier link). */
  set(object: object, value: T): void {
    if (this.#stamp.has(object) || Object.isExtensible(object)) this.#stamp.write(object, value);
    else this.#fallback.set(object, value);
  }
}

interface Stamp<T> {
  has(object: object): boolean;
  read(object: object): T;
  write(object: object, value: T): void;
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
    static has(object: object): boolean {
      return #value in object;
    }
    static read(object: object): T {
      return (object as Stamped).#value;
    }
    static write(object: object, value: T): void {
      if (#value in object) (object as Stamped).#value = value;
      else new Stamped(object, value);
    }
  }
  return Stamped;
}
