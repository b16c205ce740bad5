/**
 * The text between a function's parentheses (or an arrow's single bare parameter), and whether it is an
 * arrow function; undefined when the source is not one this reads (a class, a bound or native function).
 */
function parametersOf(source: string): { params: string; arrow: boolean } | undefined {
  if (source.includes("[native code]") || /^class\b/.test(source)) return undefined;
  const text = source.replace(/^async\b\s*/, "");
  const bare = /^([\w$]+)\s*=>/.exec(text);
  if (bare) return { params: bare[1] as string, arrow: true };
  const open = text.indexOf("(");
  const close = text.indexOf(")", open + 1);
  if (open === -1 || close === -1) return undefined;
  // before the parameters: nothing (an arrow), `function name`, or a method's plain name
  if (!/^(function\b\s*\*?\s*[\w$]*|\*?\s*[\w$]*)\s*$/.test(text.slice(0, open))) return undefined;
  const arrow = open === 0 && /^\s*=>/.test(text.slice(close + 1));
  return { params: text.slice(open + 1, close), arrow };
}

/**
 * Whether a node function may read a second argument, its config: it declares two parameters or more,
 * or a default or rest parameter (which `length` does not count), or, not being an arrow function, it
 * mentions `arguments`. Any function this cannot read counts as one that may. A node that cannot read a
 * second argument is called without one, and its config is built only if it asks for it (`getConfig()`,
 * a child runnable). @internal
 */
export function mayReadConfigArgument(fn: (...args: never[]) => unknown): boolean {
  if (fn.length >= 2) return true;
  const source = Function.prototype.toString.call(fn);
  const parsed = parametersOf(source);
  if (parsed === undefined) return true;
  if (parsed.params.includes("=") || parsed.params.includes("...")) return true;
  return !parsed.arrow && /\barguments\b/.test(source);
}
