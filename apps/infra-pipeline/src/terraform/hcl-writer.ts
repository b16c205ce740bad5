/**
 * Writes HCL the way `terraform fmt` lays it out: two-space indents, `=` aligned across consecutive
 * attributes, blank lines between top-level blocks.
 */

/**
 * An expression written verbatim: references, function calls.
 *
 * @example
 * attr("bucket", expr("aws_s3_bucket.logs.id"));
 */
export class HclExpr {
  constructor(readonly text: string) {}
}

/**
 * A value to write: literals, lists, objects, or a verbatim {@link HclExpr}.
 *
 * @example
 * const tags: HclWritable = { Environment: "prd", Project: "trellis" };
 */
export type HclWritable = string | number | boolean | null | HclExpr | HclWritable[] | { [key: string]: HclWritable };

/**
 * A body item: an attribute or a nested block.
 *
 * @example
 * const node: HclNode = block("versioning_configuration", [], [attr("status", "Enabled")]);
 */
export type HclNode =
  | { kind: "attr"; name: string; value: HclWritable }
  | { kind: "block"; type: string; labels: string[]; body: HclNode[] };

/**
 * An attribute node.
 *
 * @example
 * attr("enable_key_rotation", true);
 */
export function attr(name: string, value: HclWritable): HclNode {
  return { kind: "attr", name, value };
}

/**
 * A block node.
 *
 * @example
 * block("resource", ["aws_s3_bucket", "logs"], [attr("bucket", "trellis-prd-logs")]);
 */
export function block(type: string, labels: string[], body: HclNode[]): HclNode {
  return { kind: "block", type, labels, body };
}

/**
 * A verbatim expression.
 *
 * @example
 * expr("merge(local.common_tags, { Name = \"x\" })");
 */
export function expr(text: string): HclExpr {
  return new HclExpr(text);
}

/**
 * Renders top-level nodes as a file, blocks separated by blank lines.
 *
 * @example
 * renderHcl([block("provider", ["aws"], [attr("region", expr("var.aws_region"))])]);
 * // provider "aws" {\n  region = var.aws_region\n}\n
 */
export function renderHcl(nodes: readonly HclNode[]): string {
  return `${nodes.map((n) => renderBody([n], 0)).join("\n")}`;
}

function renderBody(nodes: readonly HclNode[], depth: number): string {
  const pad = "  ".repeat(depth);
  let out = "";
  let i = 0;
  while (i < nodes.length) {
    const node = nodes[i] as HclNode;
    if (node.kind === "block") {
      if (i > 0 && nodes[i - 1]?.kind === "attr") out += "\n";
      const labels = node.labels.map((l) => ` ${hclString(l)}`).join("");
      out +=
        node.body.length === 0
          ? `${pad}${node.type}${labels} {}\n`
          : `${pad}${node.type}${labels} {\n${renderBody(node.body, depth + 1)}${pad}}\n`;
      if (depth === 0 && i < nodes.length - 1) out += "\n";
      i++;
      continue;
    }
    let j = i;
    while (j < nodes.length && nodes[j]?.kind === "attr") j++;
    const group = nodes.slice(i, j) as Array<Extract<HclNode, { kind: "attr" }>>;
    const width = Math.max(...group.map((a) => a.name.length));
    for (const a of group) out += `${pad}${a.name.padEnd(width)} = ${renderValue(a.value, depth)}\n`;
    i = j;
  }
  return out;
}

function renderValue(value: HclWritable, depth: number): string {
  if (value instanceof HclExpr) return value.text;
  if (value === null) return "null";
  if (typeof value === "string") return hclString(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== "object" || v instanceof HclExpr)) {
      return `[${value.map((v) => renderValue(v, depth)).join(", ")}]`;
    }
    const pad = "  ".repeat(depth + 1);
    return `[\n${value.map((v) => `${pad}${renderValue(v, depth + 1)},\n`).join("")}${"  ".repeat(depth)}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  const pad = "  ".repeat(depth + 1);
  const keys = entries.map(([k]) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) ? k : hclString(k)));
  const width = Math.max(...keys.map((k) => k.length));
  const lines = entries.map(
    ([, v], n) => `${pad}${(keys[n] as string).padEnd(width)} = ${renderValue(v, depth + 1)}\n`,
  );
  return `{\n${lines.join("")}${"  ".repeat(depth)}}`;
}

/**
 * A string as an HCL literal: quotes, backslashes and control characters escaped, and `${` / `%{`
 * doubled so Terraform reads them as text, not as an interpolation.
 *
 * @example
 * hclString('cost: ${5}'); // "\"cost: $${5}\""
 */
export function hclString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const code = text.charCodeAt(i);
    if (c === '"') out += '\\"';
    else if (c === "\\") out += "\\\\";
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (c === "\t") out += "\\t";
    else if (code >= 0xd800 && code <= 0xdbff && /[\udc00-\udfff]/.test(text[i + 1] ?? "")) {
      out += c + text[i + 1];
      i++;
    } else if (code < 0x20 || code === 0x7f || (code >= 0xd800 && code <= 0xdfff)) {
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    } else if ((c === "$" || c === "%") && text[i + 1] === "{") out += c + c;
    else out += c;
  }
  return `${out}"`;
}
