import type { Readable, Writable } from "node:stream";

/**
 * The streams and environment a command runs with. `bin.ts` passes the process's own; tests pass
 * their own streams, so every command runs in-process with scripted input.
 *
 * @example
 * const io: CliIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
 */
export interface CliIo {
  stdin: Readable;
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable;
  env: Record<string, string | undefined>;
  cwd: string;
}

/**
 * An error the CLI reports in plain words (no stack) with its exit code: 1 for failures, 2 for a
 * command line that does not parse.
 *
 * @example
 * throw new CliError('No graph "tutr" in trellis.json. Graphs: tutor, twi-author.');
 */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * Reads stdin line by line on demand. `next()` resolves with the next line, or `undefined` once the
 * stream has ended (no more answers).
 *
 * @example
 * const lines = new LineReader(io.stdin);
 * const answer = await lines.next();
 */
export class LineReader {
  readonly #lines: string[] = [];
  readonly #waiting: Array<(line: string | undefined) => void> = [];
  #buffer = "";
  #ended = false;
  readonly #input: Readable;
  #attached = false;

  constructor(input: Readable) {
    this.#input = input;
  }

  #attach(): void {
    if (this.#attached) return;
    this.#attached = true;
    this.#input.setEncoding?.("utf8");
    this.#input.on("data", (chunk: string | Buffer) => {
      this.#buffer += chunk.toString();
      let i = this.#buffer.indexOf("\n");
      while (i >= 0) {
        this.#push(this.#buffer.slice(0, i).replace(/\r$/, ""));
        this.#buffer = this.#buffer.slice(i + 1);
        i = this.#buffer.indexOf("\n");
      }
    });
    this.#input.on("end", () => {
      if (this.#buffer !== "") this.#push(this.#buffer);
      this.#buffer = "";
      this.#ended = true;
      for (const w of this.#waiting.splice(0)) w(undefined);
    });
    this.#input.on("error", () => {
      this.#ended = true;
      for (const w of this.#waiting.splice(0)) w(undefined);
    });
  }

  #push(line: string): void {
    const waiter = this.#waiting.shift();
    if (waiter) waiter(line);
    else this.#lines.push(line);
  }

  /** The next line, or undefined when the input has ended. */
  next(): Promise<string | undefined> {
    this.#attach();
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#ended) return Promise.resolve(undefined);
    this.#input.resume?.();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Stops reading, so a process whose stdin is a terminal can exit. */
  close(): void {
    this.#input.pause?.();
    if (this.#input === process.stdin) process.stdin.unref?.();
  }
}
