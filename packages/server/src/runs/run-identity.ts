import { TrellisError } from "@trellis/checkpoint";
import type { RunUser } from "@trellis/core";

/**
 * The `configurable` keys through which LangGraph's server hands a run its authenticated user
 * (`langgraph_auth_user`, `langgraph_auth_user_id`, `langgraph_auth_permissions`). Trellis's server
 * writes them on every run; a client that sends one is refused.
 *
 * @example
 * RESERVED_CONFIGURABLE_KEYS.includes("langgraph_auth_user_id"); // true
 */
export const RESERVED_CONFIGURABLE_KEYS: readonly string[] = [
  "langgraph_auth_user",
  "langgraph_auth_user_id",
  "langgraph_auth_permissions",
];

/**
 * The keys a client may not send in a run's `configurable` or `context`: LangGraph's auth keys always,
 * and `user_id` when the server's auth is on (the server sets it to the authenticated user, so graphs
 * ported from LangGraph that read `configurable.user_id` get a user no client can forge). With auth
 * off there is no user to protect and a client's `user_id` passes through.
 *
 * @example
 * reservedKeys(true); // ["langgraph_auth_user", "langgraph_auth_user_id", "langgraph_auth_permissions", "user_id"]
 */
export function reservedKeys(authEnabled: boolean): readonly string[] {
  return authEnabled ? [...RESERVED_CONFIGURABLE_KEYS, "user_id"] : RESERVED_CONFIGURABLE_KEYS;
}

/**
 * Throws a 400 `INVALID_ARGUMENT` naming the first reserved key (see {@link reservedKeys}) that a
 * client-sent object holds. `where` names the object as the client wrote it (`config.configurable`,
 * `context`, `forwardedProps.configurable`…), so the message says what to remove.
 *
 * @example
 * refuseReservedKeys({ user_id: "alice" }, "config.configurable", true);
 * // TrellisError INVALID_ARGUMENT: config.configurable.user_id is set by the server …
 */
export function refuseReservedKeys(values: unknown, where: string, authEnabled: boolean): void {
  if (typeof values !== "object" || values === null || Array.isArray(values)) return;
  for (const key of reservedKeys(authEnabled)) {
    if (!Object.hasOwn(values, key)) continue;
    throw new TrellisError(
      "INVALID_ARGUMENT",
      `${where}.${key} is set by the server to the authenticated user of the run; a client may not send it. Remove "${key}" (nodes read the user as ctx.user, or configurable.langgraph_auth_user_id).`,
      { details: { key, where } },
    );
  }
}

/**
 * The user a run acts for, for `ctx.user`: the run's owner (`null` with auth off, or for a thread no
 * user owns).
 *
 * @example
 * runUser("alice"); // { id: "alice" }
 */
export function runUser(owner: string | null): RunUser | null {
  return owner === null ? null : { id: owner };
}

/**
 * What the server writes into a run's `configurable`, over anything stored there: LangGraph's auth keys
 * (`langgraph_auth_user` as LangGraph's `BaseUser` shape, `null` without a user; the id, `""` without a
 * user, as LangGraph gives it) and, for a run with an owner (so auth is on), `user_id`.
 *
 * @example
 * identityConfigurable("alice");
 * // { langgraph_auth_user: { identity: "alice", is_authenticated: true, display_name: "alice", permissions: [] },
 * //   langgraph_auth_user_id: "alice", langgraph_auth_permissions: [], user_id: "alice" }
 */
export function identityConfigurable(owner: string | null): Record<string, unknown> {
  return {
    langgraph_auth_user:
      owner === null ? null : { identity: owner, is_authenticated: true, display_name: owner, permissions: [] },
    langgraph_auth_user_id: owner ?? "",
    langgraph_auth_permissions: [],
    ...(owner !== null ? { user_id: owner } : {}),
  };
}
