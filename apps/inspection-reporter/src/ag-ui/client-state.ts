import { TrellisError } from "@trellis/core";
import * as z from "zod";
import type { UserSettings, UserSettingsStore } from "../agents/user-settings.js";

/**
 * The keys of the AG-UI state this app shows the client (`STATE_SNAPSHOT`) and what the client may do
 * with each when it sends its `RunAgentInput.state` back:
 * - `messages`, `current_agent`: the server's, read-only. The client's copy is ignored (it may be older
 *   than the thread: the conversation comes from `RunAgentInput.messages`, the agent changes only by
 *   handoff);
 * - `user_settings`: the inspector's own settings (`inspector_name`, `region`, `detail_level`), the same
 *   the general agent's `update_user_settings` keeps. The client may change them: they are checked and
 *   saved before the turn runs, and the report names the inspector from them.
 *
 * Any other key is refused with `UNKNOWN_STATE_KEY` naming it: report facts (company, address,
 * findings) come only from what the inspector says in the conversation, never from a client's state.
 */
export const CLIENT_STATE_KEYS = { readOnly: ["messages", "current_agent"], writable: ["user_settings"] } as const;

const userSettingsState = z.strictObject({
  inspector_name: z.string().trim().min(2).max(80).optional(),
  region: z.string().trim().min(2).max(80).optional(),
  detail_level: z.enum(["kort", "uitgebreid"]).optional(),
});

/**
 * Checks the client's AG-UI state and saves what it may change (`user_settings`) for `settingsKey`
 * (whose settings the turn's agents use: the user, else the thread). Returns the settings the client
 * changed (empty when it only echoed what it was shown). Without a `store` settings cannot change. Throws `UNKNOWN_STATE_KEY` for a key the app
 * does not take from clients, `INVALID_ARGUMENT` for settings that do not fit; nothing is saved then.
 *
 * @example
 * applyClientState({ user_settings: { inspector_name: "Jan de Vries" } }, store, "thread-1");
 * // { inspector_name: "Jan de Vries" }
 */
export function applyClientState(
  state: unknown,
  store: UserSettingsStore | undefined,
  settingsKey: string,
): UserSettings {
  if (state === undefined || state === null) return {};
  if (typeof state !== "object" || Array.isArray(state)) {
    throw new TrellisError("INVALID_ARGUMENT", "RunAgentInput.state must be an object.");
  }
  const keys = Object.keys(state);
  const known: readonly string[] = [...CLIENT_STATE_KEYS.readOnly, ...CLIENT_STATE_KEYS.writable];
  const refused = keys.filter((k) => !known.includes(k));
  if (refused.length > 0) {
    throw new TrellisError(
      "UNKNOWN_STATE_KEY",
      `RunAgentInput.state has ${refused.map((k) => `"${k}"`).join(", ")}, which the inspection app does not take from a client: ` +
        `only "user_settings" (inspector_name, region, detail_level) can be set there ("messages" and "current_agent" are the server's). ` +
        "Report facts come from what the inspector says in the conversation.",
    );
  }
  const settings = (state as Record<string, unknown>).user_settings;
  if (settings === undefined || settings === null) return {};
  const parsed = userSettingsState.safeParse(settings);
  if (!parsed.success) {
    const problem = parsed.error.issues.map((i) => `${i.path.join(".") || "user_settings"}: ${i.message}`).join("; ");
    throw new TrellisError("INVALID_ARGUMENT", `RunAgentInput.state.user_settings does not fit: ${problem}.`);
  }
  const current = (store?.get(settingsKey) ?? {}) as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parsed.data)) if (v !== undefined && current[k] !== v) changed[k] = v;
  if (Object.keys(changed).length === 0) return {};
  if (!store) {
    throw new TrellisError(
      "INVALID_ARGUMENT",
      "This app instance keeps no inspector settings: leave out user_settings.",
    );
  }
  store.update(settingsKey, changed as UserSettings);
  return changed as UserSettings;
}
