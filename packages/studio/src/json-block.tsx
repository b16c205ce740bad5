/**
 * A value as indented JSON in a `<pre>`.
 *
 * @example
 * <JsonBlock value={{ a: 1 }} />
 */
export function JsonBlock({ value }: { value: unknown }) {
  return <pre class="json">{value === undefined ? "undefined" : JSON.stringify(value, null, 2)}</pre>;
}
