/** How deep {@link isPlainJson} looks before leaving a value to the serializer. */
const MAX_DEPTH = 64;

/**
 * Whether `value` is JSON as it stands: strings, booleans, null, finite numbers other than -0, arrays
 * without `undefined`, and objects of `Object.prototype` with no `$trellis` key, at most 64 levels
 * deep. For such a value the default serializer's text is exactly `JSON.stringify(value)` (it has
 * nothing to refuse and nothing to tag), so a saver may skip its two walks. Anything else — a Date, a
 * Map, a class instance, a cycle, deeper nesting — answers false and goes through the serializer,
 * which keeps or refuses it as before. @internal
 *
 * @example
 * isPlainJson({ source: "loop", step: 3, writes: { a: ["k"] } }); // true
 * isPlainJson({ at: new Date() }); // false: the serializer tags it
 */
export function isPlainJson(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) {
    if (key === "$trellis" || !isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
