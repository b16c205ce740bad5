/**
 * A Terraform module read statically: its resources, `removed` blocks, providers, locals and variable
 * defaults, and an evaluator that turns expressions into plain values where that is possible without
 * running Terraform (literals, `local.*`, `var.*` defaults, `merge`, `jsonencode`, templates over those).
 */
import { type HclAttribute, type HclBlock, type HclError, type HclValue, parseHcl } from "./hcl-parser.js";

/**
 * A value the evaluator cannot know statically (a reference to another resource, a conditional…).
 *
 * @example
 * if (value instanceof Unknown) console.log(`cannot verify: ${value.text}`);
 */
export class Unknown {
  constructor(readonly text: string) {}
}

/**
 * A `resource "type" "label"` block.
 *
 * @example
 * module.resources.map((r) => r.address); // ["aws_s3_bucket.logs", …]
 */
export interface TfResource {
  type: string;
  label: string;
  address: string;
  block: HclBlock;
  file: string;
}

/**
 * A parsed module.
 *
 * @example
 * const mod = loadModule([{ path: "main.tf", content }]);
 * mod.errors.length === 0;
 */
export interface TfModule {
  files: Array<{ path: string; blockCount: number }>;
  resources: TfResource[];
  /** `removed { from = … }` blocks: resources this configuration deletes. */
  removed: Array<{ from: string; destroy: boolean; file: string; line: number }>;
  providers: HclBlock[];
  locals: Record<string, HclValue>;
  variables: Record<string, HclValue>;
  errors: HclError[];
}

/**
 * Parses and indexes the `.tf` files of a module.
 *
 * @example
 * const mod = loadModule(files);
 * mod.resources.find((r) => r.type === "aws_s3_bucket");
 */
export function loadModule(files: ReadonlyArray<{ path: string; content: string }>): TfModule {
  const mod: TfModule = { files: [], resources: [], removed: [], providers: [], locals: {}, variables: {}, errors: [] };
  for (const { path, content } of files) {
    const parsed = parseHcl(content, path);
    mod.files.push({ path, blockCount: parsed.blocks.length });
    mod.errors.push(...parsed.errors);
    for (const block of parsed.blocks) {
      const [first, second] = block.labels;
      if (block.type === "resource" && first && second) {
        mod.resources.push({ type: first, label: second, address: `${first}.${second}`, block, file: path });
      } else if (block.type === "removed") {
        const from = block.attributes.from?.value;
        const lifecycle = block.blocks.find((b) => b.type === "lifecycle");
        const destroy = lifecycle?.attributes.destroy?.value;
        mod.removed.push({
          from: from?.kind === "ref" ? from.path : from?.kind === "raw" ? from.text : "",
          destroy: destroy?.kind !== "bool" || destroy.value,
          file: path,
          line: block.line,
        });
      } else if (block.type === "provider") {
        mod.providers.push(block);
      } else if (block.type === "locals") {
        for (const [name, attr] of Object.entries(block.attributes)) mod.locals[name] = attr.value;
      } else if (block.type === "variable" && first) {
        const value = block.attributes.default?.value;
        if (value) mod.variables[first] = value;
      }
    }
  }
  return mod;
}

/**
 * Evaluates an expression to a plain value, or an {@link Unknown} (possibly nested inside objects and
 * lists) where it depends on something only Terraform knows.
 *
 * @example
 * evaluate(mod, resource.block.attributes.tags?.value); // { Environment: "prd", … }
 */
export function evaluate(mod: TfModule, value: HclValue | undefined, depth = 0): unknown {
  if (value === undefined) return undefined;
  if (depth > 20) return new Unknown("(too deep)");
  switch (value.kind) {
    case "string":
      return value.template ? interpolate(mod, value.value, depth) : value.value;
    case "number":
    case "bool":
      return value.value;
    case "null":
      return null;
    case "list":
      return value.items.map((item) => evaluate(mod, item, depth + 1));
    case "object":
      return Object.fromEntries(Object.entries(value.entries).map(([k, v]) => [k, evaluate(mod, v, depth + 1)]));
    case "ref":
      return evaluateRef(mod, value.path, depth);
    case "call":
      return evaluateCall(mod, value, depth);
    case "raw":
      return new Unknown(value.text);
  }
}

function evaluateRef(mod: TfModule, path: string, depth: number): unknown {
  const [root, name, ...rest] = path.split(".");
  let base: unknown;
  if (root === "local" && name && mod.locals[name]) base = evaluate(mod, mod.locals[name], depth + 1);
  else if (root === "var" && name && mod.variables[name]) base = evaluate(mod, mod.variables[name], depth + 1);
  else return new Unknown(path);
  for (const key of rest) {
    if (typeof base !== "object" || base === null || base instanceof Unknown) return new Unknown(path);
    base = (base as Record<string, unknown>)[key];
  }
  return base === undefined ? new Unknown(path) : base;
}

function evaluateCall(mod: TfModule, call: Extract<HclValue, { kind: "call" }>, depth: number): unknown {
  const args = call.args.map((a) => evaluate(mod, a, depth + 1));
  const text = `${call.name}(…)`;
  switch (call.name) {
    case "merge": {
      if (!args.every((a) => isPlainObject(a))) return new Unknown(text);
      return Object.assign({}, ...(args as object[]));
    }
    case "jsonencode":
      return hasUnknown(args[0]) ? new Unknown(text) : JSON.stringify(args[0]);
    case "tomap":
    case "tolist":
    case "toset":
      return args[0];
    case "lower":
    case "upper":
      if (typeof args[0] !== "string") return new Unknown(text);
      return call.name === "lower" ? args[0].toLowerCase() : args[0].toUpperCase();
    default:
      return new Unknown(text);
  }
}

function interpolate(mod: TfModule, template: string, depth: number): unknown {
  let unknown = false;
  const out = template.replace(/\$\{\s*([^}]*?)\s*\}/g, (whole, expr: string) => {
    if (!/^[A-Za-z_][\w.-]*$/.test(expr)) {
      unknown = true;
      return whole;
    }
    const v = evaluateRef(mod, expr, depth + 1);
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return String(v);
    unknown = true;
    return whole;
  });
  return unknown || /%\{/.test(out) ? new Unknown(template) : out;
}

/**
 * Whether a value is, or contains, an {@link Unknown}.
 *
 * @example
 * hasUnknown({ a: new Unknown("x") }); // true
 */
export function hasUnknown(value: unknown): boolean {
  if (value instanceof Unknown) return true;
  if (Array.isArray(value)) return value.some(hasUnknown);
  if (isPlainObject(value)) return Object.values(value).some(hasUnknown);
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Unknown);
}

/**
 * Whether a block refers to `address` (`aws_s3_bucket.logs`) anywhere in its attributes or nested
 * blocks — how companion resources (versioning, encryption…) point at their bucket.
 *
 * @example
 * referencesAddress(versioning.block, "aws_s3_bucket.logs"); // true for `bucket = aws_s3_bucket.logs.id`
 */
export function referencesAddress(block: HclBlock, address: string): boolean {
  const pattern = new RegExp(`(^|[^\\w.])${address.replace(/\./g, "\\.")}(\\.|\\[|$|[^\\w])`);
  const walk = (value: HclValue): boolean => {
    switch (value.kind) {
      case "ref":
        return value.path === address || value.path.startsWith(`${address}.`) || value.path.startsWith(`${address}[`);
      case "raw":
        return pattern.test(value.text);
      case "string":
        return value.template && pattern.test(value.value);
      case "list":
        return value.items.some(walk);
      case "object":
        return Object.values(value.entries).some(walk);
      case "call":
        return value.args.some(walk);
      default:
        return false;
    }
  };
  return (
    Object.values(block.attributes).some((a) => walk(a.value)) ||
    block.blocks.some((b) => referencesAddress(b, address))
  );
}

/**
 * The resources of a type that are `subject` or refer to it; all of that type without a subject.
 *
 * @example
 * resourcesFor(mod, "aws_s3_bucket_versioning", "aws_s3_bucket.logs");
 */
export function resourcesFor(mod: TfModule, type: string, subject?: string): TfResource[] {
  return mod.resources.filter(
    (r) => r.type === type && (subject === undefined || r.address === subject || referencesAddress(r.block, subject)),
  );
}

/**
 * Every value at a dotted path through nested blocks and object attributes
 * (`rule.apply_server_side_encryption_by_default.sse_algorithm`), with the attribute's line.
 *
 * @example
 * valuesAt(mod, block, "versioning_configuration.status"); // [{ value: "Enabled", line: 4 }]
 */
export function valuesAt(mod: TfModule, block: HclBlock, path: string): Array<{ value: unknown; line: number }> {
  const [head, ...rest] = path.split(".");
  if (head === undefined) return [];
  const out: Array<{ value: unknown; line: number }> = [];
  const attr: HclAttribute | undefined = block.attributes[head];
  if (attr) {
    let value = evaluate(mod, attr.value);
    for (const key of rest) {
      value = isPlainObject(value) ? value[key] : undefined;
    }
    if (value !== undefined) out.push({ value, line: attr.line });
  }
  if (rest.length > 0) {
    for (const child of block.blocks.filter((b) => b.type === head)) out.push(...valuesAt(mod, child, rest.join(".")));
  }
  return out;
}

/**
 * The first value at a path, or undefined.
 *
 * @example
 * valueAt(mod, bucket.block, "force_destroy"); // true | undefined
 */
export function valueAt(mod: TfModule, block: HclBlock, path: string): unknown {
  return valuesAt(mod, block, path)[0]?.value;
}
