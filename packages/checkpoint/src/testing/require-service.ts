/**
 * Options of {@link requireService}.
 *
 * @example
 * await requireService("Redis", probe, { hint: "start redis-server", timeoutMs: 1_000 });
 */
export interface RequireServiceOptions {
  /** How to get the service running, shown when it is missing. */
  hint?: string;
  /** Give up on the probe after this long. Default 3 s. */
  timeoutMs?: number;
  /** Environment to read `CI` from. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/**
 * Checks that a service an integration test needs is reachable. When it is, resolves `true`. When it
 * is not: under CI (`CI=true` or `CI=1`) it throws, so the run fails instead of passing with nothing
 * tested; elsewhere it prints a loud warning saying what is missing and resolves `false`, so the
 * caller skips its tests.
 *
 * @example
 * const postgres = await requireService("postgres", () => pool.query("select 1"), {
 *   hint: "start PostgreSQL on 127.0.0.1:5432 or set TRELLIS_POSTGRES_URL",
 * });
 * describe.skipIf(!postgres)("PostgresSaver", () => { ... });
 */
export async function requireService(
  name: string,
  probe: () => Promise<unknown>,
  options: RequireServiceOptions = {},
): Promise<boolean> {
  const timeoutMs = options.timeoutMs ?? 3_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return true;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const message = `${name} is not reachable (${why}).${options.hint ? ` ${options.hint}.` : ""}`;
    const ci = (options.env ?? process.env).CI;
    if (ci === "true" || ci === "1") {
      throw new Error(`${message} CI=${ci}: integration tests must not be skipped, so this run fails.`);
    }
    const bar = "=".repeat(Math.min(100, message.length + 12));
    console.warn(`\n${bar}\n  SKIPPING ${name} tests: ${message}\n  (Under CI=true this fails the run.)\n${bar}\n`);
    return false;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
