/**
 * Builds an app in a fresh temporary directory for tests: SQLite checkpoints and audit log, a
 * filesystem blob store, the offline model unless one is given.
 * @internal
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "@trellis/core";
import type { ChatModel } from "@trellis/models";
import { loadTwiConfig, type TwiConfig } from "../config.js";
import { createTwiApp, type TwiApp } from "../create-twi-app.js";
import type { ConversationStart } from "../state.js";

/** A test app and the directory it lives in. @internal */
export interface TestApp extends TwiApp {
  dir: string;
  /** Closes the app and deletes its directory. */
  dispose(): Promise<void>;
}

/** Options of {@link createTestApp}. @internal */
export interface TestAppOptions {
  dir?: string;
  model?: ChatModel;
  clock?: Clock;
  env?: Record<string, string>;
}

/** A temporary directory that {@link createTestApp} may share between two app instances. @internal */
export function tempDir(prefix = "twi-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Settings for a test app in `dir`. @internal */
export function testConfig(dir: string, env: Record<string, string> = {}): TwiConfig {
  return loadTwiConfig({
    TWI_DATA_DIR: dir,
    TWI_URL_SIGNING_SECRET: "test-secret-0123456789abcdef",
    TWI_PUBLIC_BASE_URL: "http://127.0.0.1:8123/apps/twi-author",
    ...env,
  });
}

/** Creates an app in a temporary directory. @internal */
export function createTestApp(options: TestAppOptions = {}): TestApp {
  const dir = options.dir ?? tempDir();
  const app = createTwiApp({
    config: testConfig(dir, options.env),
    env: {},
    ...(options.model ? { model: options.model } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    ...app,
    dir,
    async dispose() {
      await app.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A conversation start with test identities. @internal */
export function conversation(id: string, message: string): ConversationStart {
  return { conversation_id: id, user_id: "user-1", tenant_id: "acme", channel: "msteams", message };
}

/** A request the offline model drafts in full (a known job). @internal */
export const PALLET_REQUEST = "Írj TWI munkautasítást a raklap kézi fóliázásáról.";
