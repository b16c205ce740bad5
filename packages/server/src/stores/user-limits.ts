import { TrellisError } from "@trellis/checkpoint";
import type { ResolvedConfig } from "../config/config.js";
import type { CronStore } from "./cron-store.js";
import type { RunStore } from "./run-store.js";

/**
 * The per-user limits of `trellis.json`'s `limits` that count what a user keeps (streams are counted by
 * `StreamLimits`).
 *
 * @example
 * const name: UserLimitName = "queuedRunsPerUser";
 */
export type UserLimitName =
  | "queuedRunsPerUser"
  | "cronsPerUser"
  | "threadsPerUser"
  | "storeItemsPerUser"
  | "storeBytesPerUser";

/**
 * The 429 of a per-user limit: `TOO_MANY_REQUESTS`, naming the limit (`details.limit`, its value in
 * `details.max`, what the user has in `details.current`) and what to do.
 *
 * @example
 * throw tooMany("cronsPerUser", 100, 100, "Delete a cron you no longer need, then try again.");
 */
export function tooMany(limit: UserLimitName, max: number, current: number, todo: string): TrellisError {
  const what: Record<UserLimitName, string> = {
    queuedRunsPerUser: "queued runs",
    cronsPerUser: "crons",
    threadsPerUser: "threads",
    storeItemsPerUser: "store items",
    storeBytesPerUser: "bytes of store values",
  };
  return new TrellisError(
    "TOO_MANY_REQUESTS",
    `limits.${limit} allows ${max} ${what[limit]} per user, and you have ${current}: ${todo}`,
    { details: { limit, max, current } },
  );
}

/**
 * What {@link UserLimits} counts with.
 *
 * @example
 * const parts: UserLimitsParts = { limits: config.limits, enabled: config.auth.enabled, store };
 */
export interface UserLimitsParts {
  limits: ResolvedConfig["limits"];
  /** Auth on: each user is limited. Off (one anonymous user, development): nothing is. */
  enabled: boolean;
  store: RunStore;
  crons?: CronStore;
}

/**
 * The checks of the per-user limits on what a user keeps: queued runs, threads and crons, each refused
 * with a 429 {@link tooMany} naming its limit before anything is stored. With auth off, and for an
 * application's own trusted code (no user), nothing is limited. A check counts, then the caller stores:
 * requests of one user at the same instant may pass a limit by as many as they are.
 *
 * @example
 * await limits.checkRuns("bob", 100); // a batch of 100 runs: 429 unless bob has room for all of them
 */
export class UserLimits {
  readonly #p: UserLimitsParts;

  constructor(parts: UserLimitsParts) {
    this.#p = parts;
  }

  /** Whether `user`'s keepings are limited (auth on and a user). */
  limits(user: string | null): user is string {
    return this.#p.enabled && user !== null;
  }

  /** Room for `adding` more queued runs of `user`, or a 429 `queuedRunsPerUser`. */
  async checkRuns(user: string | null, adding = 1): Promise<void> {
    if (!this.limits(user) || !this.#p.store.pendingRunsOf) return;
    const max = this.#p.limits.queuedRunsPerUser;
    const current = await this.#p.store.pendingRunsOf(user);
    if (current + adding > max) {
      throw tooMany(
        "queuedRunsPerUser",
        max,
        current,
        `this request would queue ${adding} more. Wait for some to start, or cancel some, and try again.`,
      );
    }
  }

  /** Room for `adding` more threads of `user`, or a 429 `threadsPerUser`. */
  async checkThreads(user: string | null, adding = 1): Promise<void> {
    if (!this.limits(user)) return;
    const max = this.#p.limits.threadsPerUser;
    const current = await this.#p.store.countThreads({ owner: user });
    if (current + adding > max) {
      throw tooMany(
        "threadsPerUser",
        max,
        current,
        `this request would make ${adding} more. Delete threads you no longer need, then try again.`,
      );
    }
  }

  /** Room for one more cron of `user`, or a 429 `cronsPerUser`. */
  async checkCrons(user: string | null): Promise<void> {
    if (!this.limits(user) || !this.#p.crons) return;
    const max = this.#p.limits.cronsPerUser;
    const current = await this.#p.crons.count({ userId: user });
    if (current + 1 > max) {
      throw tooMany("cronsPerUser", max, current, "delete a cron you no longer need, then try again.");
    }
  }
}

/**
 * Whether a user still has a credential in the config, for the cron scheduler (a revoked user's crons
 * do not run): undefined (every user may) with auth off. A null owner (a cron made with auth off) may.
 * The server does not pass it with a custom `authenticate`, whose users it cannot list.
 *
 * @example
 * const active = credentialUsersOf(config);
 * active?.("bob"); // false once bob's credentials are removed from trellis.json
 */
export function credentialUsersOf(config: ResolvedConfig): ((user: string | null) => boolean) | undefined {
  if (!config.auth.enabled) return undefined;
  const users = new Set(config.auth.credentials.map((c) => c.user));
  return (user) => user === null || users.has(user);
}
