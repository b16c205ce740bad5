/**
 * Reads answers one line at a time from a stream — a terminal or a pipe — for prompts.
 */
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";

/**
 * Asks questions on `output` and reads the answers from `input`. Lines that arrive before they are
 * asked for (piped input) wait in order. With piped input the answer is echoed, so a transcript reads
 * like a terminal session.
 *
 * @example
 * const reader = new LineReader(process.stdin, process.stdout);
 * const name = await reader.ask("You: "); // undefined at end of input
 * reader.close();
 */
export class LineReader {
  readonly #rl: Interface;
  readonly #lines: AsyncIterator<string>;
  readonly #output: Writable;
  readonly #echo: boolean;
  #closed = false;

  constructor(input: Readable, output: Writable) {
    this.#rl = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
    this.#lines = this.#rl[Symbol.asyncIterator]();
    this.#output = output;
    this.#echo = (input as Readable & { isTTY?: boolean }).isTTY !== true;
  }

  /** Writes `prompt` and resolves to the next line, or undefined when the input has ended. */
  async ask(prompt: string): Promise<string | undefined> {
    if (this.#closed) return undefined;
    this.#output.write(prompt);
    const next = await this.#lines.next();
    if (next.done) {
      this.#output.write("\n");
      return undefined;
    }
    if (this.#echo) this.#output.write(`${next.value}\n`);
    return next.value;
  }

  /** Stops reading. */
  close(): void {
    this.#closed = true;
    this.#rl.close();
  }
}
