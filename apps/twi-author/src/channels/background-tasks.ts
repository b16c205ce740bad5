/**
 * Work a webhook starts and answers before finishing (Teams and Telegram want a quick 200; an LLM
 * call takes longer). Errors go to `onError`; `idle()` resolves once nothing is running, which is how
 * tests and a graceful shutdown wait for the work.
 *
 * @example
 * const tasks = new BackgroundTasks((e) => console.error(e));
 * tasks.run(() => bot.handle(activity));
 * await tasks.idle();
 */
export class BackgroundTasks {
  readonly #running = new Set<Promise<void>>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void = (error) => console.error("[twi-author]", error)) {
    this.#onError = onError;
  }

  /** Starts `fn` without waiting for it. */
  run(fn: () => Promise<unknown>): void {
    const task = Promise.resolve()
      .then(fn)
      .then(
        () => undefined,
        (error: unknown) => this.#onError(error),
      )
      .finally(() => this.#running.delete(task));
    this.#running.add(task);
  }

  /** Resolves when every started task (and any they started) has finished. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }
}
