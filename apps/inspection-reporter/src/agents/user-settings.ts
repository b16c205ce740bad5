import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { getNodeContext, type RunUser } from "@trellis/core";
import { type Tool, tool } from "@trellis/models";
import * as z from "zod";

/** What an inspector can set with `update_user_settings`. */
export interface UserSettings {
  inspector_name?: string;
  region?: string;
  detail_level?: "kort" | "uitgebreid";
}

const settingsSchema = z.object({
  inspector_name: z.string().min(2).max(80).optional().describe("The inspector's name, shown on reports"),
  region: z.string().min(2).max(80).optional().describe("The inspector's region"),
  detail_level: z.enum(["kort", "uitgebreid"]).optional().describe("How detailed answers should be"),
});

/**
 * Settings per user, optionally kept in a JSON file (read once, written on every change). Small and
 * synchronous on purpose: agents read it while building their prompt.
 *
 * @example
 * const store = new UserSettingsStore(".trellis/inspection-reporter/user-settings.json");
 * store.update("jan", { inspector_name: "Jan de Vries" });
 */
export class UserSettingsStore {
  readonly #file: string | undefined;
  readonly #all: Map<string, UserSettings>;

  /** `file`: where to keep the settings; in memory only when left out. */
  constructor(file?: string) {
    this.#file = file;
    const stored =
      file && existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, UserSettings>) : {};
    this.#all = new Map(Object.entries(stored));
  }

  /** The settings of `key` (empty when none were set). */
  get(key: string): UserSettings {
    return { ...this.#all.get(key) };
  }

  /** Merges `patch` into the settings of `key` and returns the result. */
  update(key: string, patch: UserSettings): UserSettings {
    const next = { ...this.#all.get(key) };
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) (next as Record<string, unknown>)[k] = v;
    this.#all.set(key, next);
    if (this.#file) {
      mkdirSync(dirname(this.#file), { recursive: true });
      const temp = `${this.#file}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify(Object.fromEntries(this.#all), null, 2)}\n`);
      renameSync(temp, this.#file);
    }
    return { ...next };
  }
}

const scopedKey = new AsyncLocalStorage<string>();

/**
 * Whose settings a run without an authenticated user uses (the server's auth is off, so every caller
 * is the same anonymous user): one set of settings, never one per thread.
 */
export const ANONYMOUS_SETTINGS = "anonymous";

/**
 * Runs `fn` (a graph run in this process, such as the terminal chat) with `key` as the settings owner.
 * Runs of the server use their authenticated user instead (`ctx.user`), which the agents' subgraph
 * nodes inherit.
 *
 * @example
 * await withSettingsKey("jan", () => drain(graph.streamEvents(input, { threadId })));
 */
export function withSettingsKey<T>(key: string, fn: () => T): T {
  return scopedKey.run(key, fn);
}

/**
 * Whose settings a run uses: the key set with {@link withSettingsKey}, else the run's authenticated
 * user (`ctx.user`, set by the server from the request's credentials, which no client can write), else
 * {@link ANONYMOUS_SETTINGS}. Never a thread id or a client-sent `configurable` value: either would let
 * one user read or overwrite another's settings.
 *
 * @example
 * settingsKey({ id: "jan" }); // "jan" (outside withSettingsKey)
 * settingsKey(null); // "anonymous"
 */
export function settingsKey(user: RunUser | null): string {
  const scoped = scopedKey.getStore();
  if (scoped) return scoped;
  return user?.id ?? ANONYMOUS_SETTINGS;
}

/**
 * The settings as a line for an agent's system prompt ("" when none are set).
 *
 * @example
 * settingsLine({ inspector_name: "Jan de Vries" }); // "User settings: inspector_name=Jan de Vries"
 */
export function settingsLine(settings: UserSettings): string {
  const parts = Object.entries(settings).map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? `User settings: ${parts.join("; ")}` : "";
}

/**
 * The settings of the user of the running graph node, or none outside a node.
 *
 * @example
 * const { inspector_name } = currentUserSettings(store);
 */
export function currentUserSettings(store: UserSettingsStore): UserSettings {
  try {
    return store.get(settingsKey(getNodeContext().user));
  } catch {
    return {};
  }
}

/**
 * `update_user_settings` (the general agent's tool, the seed's `create_update_user_settings_tool()`):
 * stores the inspector's name, region or preferred detail level for the current user.
 *
 * @example
 * const general = createReactAgent({ model, tools: [...handoffs, createUpdateUserSettingsTool(store)] });
 */
export function createUpdateUserSettingsTool(store: UserSettingsStore): Tool {
  return tool({
    name: "update_user_settings",
    description:
      "Save the inspector's settings: inspector_name (shown on reports), region, detail_level (kort or uitgebreid). " +
      "Only pass the settings the inspector asked to change.",
    schema: settingsSchema,
    fn: (patch) => {
      const key = settingsKey(getNodeContext().user);
      const clean: UserSettings = {};
      if (patch.inspector_name) clean.inspector_name = patch.inspector_name.trim();
      if (patch.region) clean.region = patch.region.trim();
      if (patch.detail_level) clean.detail_level = patch.detail_level;
      if (Object.keys(clean).length === 0)
        throw new Error("no settings given; pass inspector_name, region or detail_level");
      return { saved: clean, settings: store.update(key, clean) };
    },
  }) as unknown as Tool;
}
