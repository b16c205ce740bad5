/**
 * What the thread page reads from a state: links to the documents in it, and the keys an edit changed.
 * (How an interrupt asks is read by `readPause` from `@trellis/protocol`, in `interrupt-panel.tsx`.)
 */

/**
 * Links to documents in a state: string values that are http(s) URLs of a PDF, or keys ending in
 * `_url`/`url`.
 *
 * @example
 * documentLinks({ pdf_url: "http://h/a.pdf?sig=1" }); // [{ key: "pdf_url", url: "http://h/a.pdf?sig=1" }]
 */
export function documentLinks(values: Record<string, unknown> | null | undefined): Array<{ key: string; url: string }> {
  const out: Array<{ key: string; url: string }> = [];
  for (const [key, value] of Object.entries(values ?? {})) {
    if (typeof value !== "string" || !/^https?:\/\//.test(value)) continue;
    if (/url$/i.test(key) || /\.pdf(\?|$)/i.test(value)) out.push({ key, url: value });
  }
  return out;
}

/**
 * The top-level keys whose JSON differs between two states: what a fork should write (writing every key
 * again would append twice to list and message channels).
 *
 * @example
 * changedKeys({ a: 1, b: [1] }, { a: 2, b: [1] }); // { a: 2 }
 */
export function changedKeys(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after)) if (JSON.stringify(before[k]) !== JSON.stringify(v)) out[k] = v;
  return out;
}
