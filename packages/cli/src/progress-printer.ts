import type { Writable } from "node:stream";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * Prints a run's progress for a person: a spinner naming the running nodes (on a terminal), a line per
 * finished node, and streamed tokens as they come. Off a terminal it prints the same lines without the
 * spinner, so logs and tests read cleanly.
 *
 * @example
 * const p = new ProgressPrinter(process.stdout, true);
 * p.nodeStarted("write"); p.nodeFinished("write", "done"); p.stop();
 */
export class ProgressPrinter {
  readonly #out: Writable;
  readonly #tty: boolean;
  readonly #running = new Map<string, number>();
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #spinnerShown = false;
  #midLine = false;

  constructor(out: Writable, tty: boolean) {
    this.#out = out;
    this.#tty = tty;
  }

  /** A task of `node` started. */
  nodeStarted(node: string): void {
    this.#running.set(node, (this.#running.get(node) ?? 0) + 1);
    if (this.#tty && !this.#timer) {
      this.#timer = setInterval(() => this.#draw(), 80);
      this.#timer.unref?.();
    }
    this.#draw();
  }

  /** A task of `node` ended; an error prints its message. */
  nodeFinished(node: string, status: "done" | "interrupted" | "error", error?: string): void {
    const left = (this.#running.get(node) ?? 1) - 1;
    if (left > 0) this.#running.set(node, left);
    else this.#running.delete(node);
    const mark = status === "done" ? "✓" : status === "interrupted" ? "⏸" : "✗";
    this.line(`${mark} ${node}${status === "error" && error ? `: ${error}` : ""}`);
  }

  /** Streamed model text, written as it arrives. */
  token(text: string): void {
    this.#clearSpinner();
    this.#out.write(text);
    this.#midLine = !text.endsWith("\n");
  }

  /** A whole line, above the spinner. */
  line(text: string): void {
    this.#clearSpinner();
    if (this.#midLine) this.#out.write("\n");
    this.#midLine = false;
    this.#out.write(`${text}\n`);
    this.#draw();
  }

  /** Removes the spinner and stops its timer. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#clearSpinner();
    if (this.#midLine) this.#out.write("\n");
    this.#midLine = false;
    this.#running.clear();
  }

  #draw(): void {
    if (!this.#tty || this.#midLine || this.#running.size === 0) return;
    this.#frame = (this.#frame + 1) % FRAMES.length;
    this.#out.write(`\r\x1b[2K${FRAMES[this.#frame]} ${[...this.#running.keys()].join(", ")}`);
    this.#spinnerShown = true;
  }

  #clearSpinner(): void {
    if (!this.#spinnerShown) return;
    this.#out.write("\r\x1b[2K");
    this.#spinnerShown = false;
  }
}

/**
 * A value shown compactly: strings as they are (indented when multi-line), the rest as JSON, cut at
 * `max` characters.
 *
 * @example
 * showValue({ a: 1 }, 80); // '{"a":1}'
 */
export function showValue(value: unknown, max = 400): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const cut = text === undefined ? "undefined" : text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.includes("\n") ? `\n    ${cut.split("\n").join("\n    ")}` : cut;
}

/**
 * An interrupt payload as indented `key: value` lines.
 *
 * @example
 * payloadLines({ question: "Publish?", draft: "…" }); // ["  question: Publish?", "  draft: …"]
 */
export function payloadLines(value: unknown): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [`  ${showValue(value, 2000)}`];
  return Object.entries(value as Record<string, unknown>).map(([k, v]) => `  ${k}: ${showValue(v, 2000)}`);
}
