/**
 * A parser for the subset of HCL that Terraform configurations use: blocks with labels, attributes,
 * strings (with `${…}` templates kept as text), heredocs, numbers, booleans, null, lists, objects,
 * references and function calls. Anything else — operators, conditionals, `for` expressions — is kept as
 * a `raw` expression, so the review can say "cannot verify" instead of failing.
 */

/**
 * A parsed expression.
 *
 * @example
 * const v: HclValue = { kind: "ref", path: "aws_s3_bucket.logs.id" };
 */
export type HclValue =
  | { kind: "string"; value: string; template: boolean }
  | { kind: "number"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "null" }
  | { kind: "list"; items: HclValue[] }
  | { kind: "object"; entries: Record<string, HclValue> }
  | { kind: "ref"; path: string }
  | { kind: "call"; name: string; args: HclValue[] }
  | { kind: "raw"; text: string };

/**
 * `name = value`, with the line it starts on.
 *
 * @example
 * block.attributes.bucket?.value; // { kind: "string", value: "trellis-prd-logs", template: false }
 */
export interface HclAttribute {
  name: string;
  value: HclValue;
  line: number;
}

/**
 * `type "label" "label" { … }`.
 *
 * @example
 * const [type, label] = block.labels; // resource "aws_s3_bucket" "logs" → ["aws_s3_bucket", "logs"]
 */
export interface HclBlock {
  type: string;
  labels: string[];
  attributes: Record<string, HclAttribute>;
  blocks: HclBlock[];
  line: number;
  file: string;
}

/**
 * A syntax error, with where it happened.
 *
 * @example
 * file.errors[0]?.message; // "main.tf:3: unterminated string"
 */
export interface HclError {
  message: string;
  file: string;
  line: number;
}

/**
 * One parsed file. Parsing stops at the first syntax error; what came before it is kept.
 *
 * @example
 * const file = parseHcl('resource "aws_s3_bucket" "logs" { bucket = "x" }', "main.tf");
 */
export interface HclFile {
  path: string;
  blocks: HclBlock[];
  attributes: Record<string, HclAttribute>;
  errors: HclError[];
}

class HclSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_-]/;

/**
 * Parses HCL text. Never throws: syntax errors are returned in `errors`.
 *
 * @example
 * const { blocks, errors } = parseHcl(text, "main.tf");
 * blocks.filter((b) => b.type === "resource").map((b) => b.labels.join("."));
 */
export function parseHcl(text: string, path: string): HclFile {
  const parser = new Parser(text, path);
  try {
    const body = parser.body(false);
    return { path, ...body, errors: [] };
  } catch (error) {
    if (!(error instanceof HclSyntaxError)) throw error;
    const partial = parser.partial;
    return {
      path,
      blocks: partial.blocks,
      attributes: partial.attributes,
      errors: [{ message: `${path}:${error.line}: ${error.message}`, file: path, line: error.line }],
    };
  }
}

class Parser {
  #pos = 0;
  #line = 1;
  /** The top-level body parsed so far, for error recovery. */
  readonly partial: { blocks: HclBlock[]; attributes: Record<string, HclAttribute> } = { blocks: [], attributes: {} };

  constructor(
    readonly src: string,
    readonly file: string,
  ) {}

  body(closing: boolean): { blocks: HclBlock[]; attributes: Record<string, HclAttribute> } {
    const out = closing ? { blocks: [] as HclBlock[], attributes: {} as Record<string, HclAttribute> } : this.partial;
    for (;;) {
      this.#skip(true);
      if (this.#eof()) {
        if (closing) this.#fail('missing "}" at the end of a block');
        return out;
      }
      if (this.#peek() === "}") {
        if (!closing) this.#fail('unexpected "}"');
        this.#advance();
        return out;
      }
      const line = this.#line;
      const name = this.#identifier();
      this.#skip(false);
      if (this.#peek() === "=" && this.#peek(1) !== "=") {
        this.#advance();
        this.#skip(false);
        const value = this.#expression();
        this.#endOfLine();
        Object.defineProperty(out.attributes, name, {
          value: { name, value, line },
          enumerable: true,
          writable: true,
          configurable: true,
        });
        continue;
      }
      const labels: string[] = [];
      while (this.#peek() !== "{") {
        if (this.#peek() === '"') labels.push(this.#stringLiteral());
        else if (IDENT_START.test(this.#peek())) labels.push(this.#identifier());
        else this.#fail(`expected "=" or "{" after "${name}"`);
        this.#skip(false);
      }
      this.#advance();
      const inner = this.body(true);
      out.blocks.push({ type: name, labels, ...inner, line, file: this.file });
      this.#endOfLine();
    }
  }

  #expression(): HclValue {
    const start = this.#pos;
    const line = this.#line;
    try {
      const value = this.#primary();
      this.#skip(false);
      if (this.#atTerminator()) return value;
    } catch (error) {
      if (!(error instanceof HclSyntaxError) || error.message.startsWith("unterminated")) throw error;
    }
    this.#pos = start;
    this.#line = line;
    return { kind: "raw", text: this.#raw() };
  }

  #primary(): HclValue {
    const c = this.#peek();
    if (c === '"') return { kind: "string", ...this.#template() };
    if (c === "<" && this.#peek(1) === "<") {
      const value = this.#heredoc();
      return { kind: "string", value, template: /[$%]\{/.test(value) };
    }
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(this.src.slice(this.#pos, this.#pos + 64));
    if (number) {
      this.#advance(number[0].length);
      return { kind: "number", value: Number(number[0]) };
    }
    if (c === "[") return this.#list();
    if (c === "{") return this.#object();
    if (!IDENT_START.test(c)) this.#fail(`unexpected "${c}"`);
    const name = this.#identifier();
    if (name === "true" || name === "false") return { kind: "bool", value: name === "true" };
    if (name === "null") return { kind: "null" };
    if (name === "for") this.#fail("for expression");
    if (this.#peek() === "(") return this.#call(name);
    let path = name;
    for (;;) {
      if (this.#peek() === "." && /[A-Za-z0-9_*]/.test(this.#peek(1))) {
        this.#advance();
        path += `.${this.#peek() === "*" ? this.#take(1) : this.#word()}`;
      } else if (this.#peek() === "[") {
        path += this.#balanced("[", "]");
      } else {
        return { kind: "ref", path };
      }
    }
  }

  #list(): HclValue {
    this.#advance();
    const items: HclValue[] = [];
    for (;;) {
      this.#skip(true);
      if (this.#peek() === "]") {
        this.#advance();
        return { kind: "list", items };
      }
      if (this.#atForExpression()) this.#fail("for expression");
      items.push(this.#expression());
      this.#skip(true);
      if (this.#peek() === ",") this.#advance();
      else if (this.#peek() !== "]") this.#fail('expected "," or "]" in a list');
    }
  }

  #object(): HclValue {
    this.#advance();
    const entries: Record<string, HclValue> = {};
    for (;;) {
      this.#skip(true);
      if (this.#peek() === "}") {
        this.#advance();
        return { kind: "object", entries };
      }
      if (this.#atForExpression()) this.#fail("for expression");
      let key: string;
      if (this.#peek() === '"') key = this.#stringLiteral();
      else if (this.#peek() === "(") key = this.#balanced("(", ")");
      else key = this.#identifier();
      this.#skip(false);
      if (this.#peek() !== "=" && this.#peek() !== ":") this.#fail(`expected "=" or ":" after the key "${key}"`);
      this.#advance();
      this.#skip(false);
      // an own property whatever the key: `"__proto__" = …` is data, never the object's prototype
      Object.defineProperty(entries, key, {
        value: this.#expression(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.#skip(false);
      if (this.#peek() === ",") this.#advance();
    }
  }

  #call(name: string): HclValue {
    this.#advance();
    const args: HclValue[] = [];
    for (;;) {
      this.#skip(true);
      if (this.#peek() === ")") {
        this.#advance();
        return { kind: "call", name, args };
      }
      args.push(this.#expression());
      this.#skip(true);
      if (this.src.startsWith("...", this.#pos)) this.#advance(3);
      if (this.#peek() === ",") this.#advance();
      else if (this.#peek() !== ")") this.#fail(`expected "," or ")" in the call of ${name}()`);
    }
  }

  /**
   * A quoted string: escapes decoded, `${…}` and `%{…}` kept verbatim (and flagged as a template),
   * `$${` and `%%{` read as the literal `${` and `%{`.
   */
  #template(): { value: string; template: boolean } {
    this.#advance();
    let out = "";
    let template = false;
    for (;;) {
      const c = this.#peek();
      if (this.#eof() || c === "\n") this.#fail("unterminated string");
      if (c === '"') {
        this.#advance();
        return { value: out, template };
      }
      if (c === "\\") {
        const e = this.#peek(1);
        const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", '"': '"', "\\": "\\" };
        const width = e === "u" ? 4 : e === "U" ? 8 : 0;
        if (width > 0) {
          const hex = this.src.slice(this.#pos + 2, this.#pos + 2 + width);
          if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) this.#fail(`bad escape \\${e}${hex}`);
          out += String.fromCodePoint(Number.parseInt(hex, 16));
          this.#advance(2 + width);
        } else {
          out += map[e] ?? e;
          this.#advance(2);
        }
        continue;
      }
      if ((c === "$" || c === "%") && this.#peek(1) === c && this.#peek(2) === "{") {
        out += `${c}{`;
        this.#advance(3);
        continue;
      }
      if ((c === "$" || c === "%") && this.#peek(1) === "{") {
        this.#advance();
        out += c + this.#balanced("{", "}");
        template = true;
        continue;
      }
      out += c;
      this.#advance();
    }
  }

  #stringLiteral(): string {
    return this.#template().value;
  }

  #heredoc(): string {
    this.#advance(2);
    const indent = this.#peek() === "-";
    if (indent) this.#advance();
    const marker = this.#identifier();
    this.#skip(false);
    if (this.#peek() !== "\n") this.#fail("expected a new line after the heredoc marker");
    this.#advance();
    const lines: string[] = [];
    for (;;) {
      if (this.#eof()) this.#fail(`unterminated heredoc (missing ${marker})`);
      const end = this.src.indexOf("\n", this.#pos);
      const lineText = this.src.slice(this.#pos, end === -1 ? this.src.length : end);
      if (lineText.trim() === marker) {
        this.#advance(lineText.length);
        break;
      }
      lines.push(lineText);
      this.#advance(lineText.length + (end === -1 ? 0 : 1));
    }
    if (!indent) return lines.map((l) => `${l}\n`).join("");
    const widths = lines.filter((l) => l.trim() !== "").map((l) => /^\s*/.exec(l)?.[0].length ?? 0);
    const strip = widths.length ? Math.min(...widths) : 0;
    return lines.map((l) => `${l.slice(strip)}\n`).join("");
  }

  /** Text from an opening bracket to its match, strings inside respected. */
  #balanced(open: string, close: string): string {
    const start = this.#pos;
    let depth = 0;
    for (;;) {
      if (this.#eof()) this.#fail(`unterminated "${open}"`);
      const c = this.#peek();
      if (c === '"') {
        this.#template();
        continue;
      }
      if (c === open) depth++;
      else if (c === close) depth--;
      this.#advance();
      if (depth === 0) return this.src.slice(start, this.#pos);
    }
  }

  /** An expression this parser does not model, as text up to the end of the expression. */
  #raw(): string {
    const start = this.#pos;
    let depth = 0;
    for (;;) {
      if (this.#eof()) break;
      const c = this.#peek();
      if (c === '"') {
        this.#template();
        continue;
      }
      if (c === "<" && this.#peek(1) === "<" && /[-A-Za-z]/.test(this.#peek(2))) {
        this.#heredoc();
        continue;
      }
      if (c === "(" || c === "[" || c === "{") depth++;
      else if (c === ")" || c === "]" || c === "}") {
        if (depth === 0) break;
        depth--;
      } else if (depth === 0 && (c === "\n" || c === "," || c === "#" || this.src.startsWith("//", this.#pos))) break;
      this.#advance();
    }
    if (depth > 0) this.#fail("unbalanced brackets");
    const text = this.src.slice(start, this.#pos).trim();
    if (text === "" || /^[=*/%&|?:.]/.test(text)) this.#fail(`expected an expression, found "${text.slice(0, 20)}"`);
    return text;
  }

  /** `for x in …` / `for k, v in …` at the current position. */
  #atForExpression(): boolean {
    return /^for\s+[A-Za-z_]\w*(\s*,\s*[A-Za-z_]\w*)?\s+in\s/.test(this.src.slice(this.#pos, this.#pos + 80));
  }

  #identifier(): string {
    if (!IDENT_START.test(this.#peek())) this.#fail(`expected a name, found "${this.#peek() || "end of file"}"`);
    return this.#word();
  }

  #word(): string {
    const start = this.#pos;
    while (!this.#eof() && IDENT_PART.test(this.#peek())) this.#advance();
    if (start === this.#pos) this.#fail(`expected a name, found "${this.#peek()}"`);
    return this.src.slice(start, this.#pos);
  }

  #atTerminator(): boolean {
    const c = this.#peek();
    return (
      this.#eof() ||
      c === "\n" ||
      c === "," ||
      c === "}" ||
      c === "]" ||
      c === ")" ||
      c === "#" ||
      this.src.startsWith("//", this.#pos) ||
      this.src.startsWith("/*", this.#pos)
    );
  }

  #endOfLine(): void {
    this.#skip(false);
    if (this.#eof() || this.#peek() === "\n" || this.#peek() === "}") return;
    this.#fail(`expected a new line, found "${this.#peek()}"`);
  }

  /** Skips spaces and comments; with `newlines`, line breaks too. */
  #skip(newlines: boolean): void {
    for (;;) {
      const c = this.#peek();
      if (c === " " || c === "\t" || c === "\r" || (newlines && c === "\n")) this.#advance();
      else if (c === "#" || (c === "/" && this.#peek(1) === "/")) {
        while (!this.#eof() && this.#peek() !== "\n") this.#advance();
      } else if (c === "/" && this.#peek(1) === "*") {
        const end = this.src.indexOf("*/", this.#pos + 2);
        if (end === -1) this.#fail("unterminated comment");
        this.#advance(end + 2 - this.#pos);
      } else return;
    }
  }

  #take(n: number): string {
    const s = this.src.slice(this.#pos, this.#pos + n);
    this.#advance(n);
    return s;
  }

  #peek(offset = 0): string {
    return this.src[this.#pos + offset] ?? "";
  }

  #eof(): boolean {
    return this.#pos >= this.src.length;
  }

  #advance(n = 1): void {
    for (let i = 0; i < n && this.#pos < this.src.length; i++) {
      if (this.src[this.#pos] === "\n") this.#line++;
      this.#pos++;
    }
  }

  #fail(message: string): never {
    throw new HclSyntaxError(message, this.#line);
  }
}
