/**
 * A link from an object to a value that goes wherever the object goes and dies with it, cheaper than a
 * WeakMap entry: a non-enumerable symbol-keyed property, which no spread, `Object.keys`, JSON or
 * serializer of the layer's or Trellis's sees. An object that cannot take a property (frozen, sealed)
 * keeps its link in a WeakMap instead.
 *
 * Why not a WeakMap alone: the layer links each message and each messages list it converts (a few per
 * step), and on V8 every live WeakMap entry is an ephemeron each young-generation collection must
 * process; a property costs its object one more hidden-class transition and the collector nothing.
 * @internal
 */
export class ObjectLink<T> {
  readonly #key: symbol;
  readonly #fallback = new WeakMap<object, T>();

  /** @example const plainOf = new ObjectLink<StoredMessage>("stored form"); */
  constructor(description: string) {
    this.#key = Symbol(description);
  }

  /** The value linked to `object`, if any. */
  get(object: object): T | undefined {
    const value = (object as Record<symbol, T | undefined>)[this.#key];
    if (value !== undefined || Object.isExtensible(object)) return value;
    return this.#fallback.get(object);
  }

  /** Links `value` to `object` (replacing an earlier link). */
  set(object: object, value: T): void {
    if (Object.isExtensible(object)) {
      Object.defineProperty(object, this.#key, { value, writable: true, configurable: true, enumerable: false });
    } else {
      this.#fallback.set(object, value);
    }
  }
}
