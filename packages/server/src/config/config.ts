import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { TrellisError } from "@trellis/checkpoint";
import type { ModelPrices } from "@trellis/core";
import type { RetentionSettings } from "../operations/retention.js";
import { checkPrices } from "../runs/run-usage.js";
import { fromLangGraphJson, isLangGraphJson } from "./langgraph-json.js";
import type { StoreConfig } from "./store-config.js";

/**
 * One assistant the server hosts: a module and the export that holds (or builds) its graph.
 *
 * @example
 * const entry: GraphEntry = { module: "./src/inspection.ts", graph: "graph", routes: "routes" };
 * const server = await createServer({ graphs: { inspection: entry } });
 */
export interface GraphEntry {
  /** A package specifier (`@acme/agents/tutor`) or a path relative to the config file (`./src/graph.ts`). */
  module: string;
  /** Export holding a `CompiledGraph`, or a (sync or async) function returning one. Default `"graph"`. */
  graph?: string;
  /**
   * Optional export holding a Hono app, or a (sync or async) function `(ctx) => Hono` building one; it
   * is mounted under `/apps/<assistant id>/`.
   */
  routes?: string;
  /**
   * Who authenticates the app's routes: `"server"` (default: the server's auth, when on, guards them
   * like the API) or `"app"` (mounted before the server's auth, for webhooks and signed links that carry
   * their own proof; the body limit still applies).
   */
  routesAuth?: "server" | "app";
  /** Shown by `GET /assistants/{id}`. */
  name?: string;
  description?: string;
}

/**
 * Where checkpoints, threads, runs and the queue live.
 *
 * @example
 * const saver: SaverConfig = { kind: "postgres", url: "postgres://127.0.0.1:5432/trellis", schema: "trellis" };
 * const server = await createServer({ graphs, saver });
 */
export type SaverConfig =
  | { kind: "sqlite" /** File path relative to the config file, or ":memory:". */; path: string }
  | { kind: "postgres"; url: string; schema?: string };

/**
 * The queue that carries runs to workers.
 *
 * @example
 * const queue: QueueConfig = { kind: "redis", url: "redis://127.0.0.1:6379", prefix: "trellis:", concurrency: 8 };
 * const server = await createServer({ graphs, saver, queue });
 */
export type QueueConfig =
  | { kind: "embedded" /** Runs executing at once in this process. Default 4. */; concurrency?: number }
  | {
      kind: "redis";
      url: string;
      /** Prefix of the Redis keys and channels. Default `trellis:`. */
      prefix?: string;
      /** Runs a `worker` process executes at once. Default 4. */
      concurrency?: number;
      /** How often a worker reports its runs. Default 1000 ms. */
      heartbeatMs?: number;
      /**
       * A run whose worker was silent this long goes back to the queue (and the silent worker's attempt
       * stops writing after `orphanAfterMs - heartbeatMs`). Default 4000 ms.
       */
      orphanAfterMs?: number;
    };

/**
 * Retention: finished runs and their events are deleted `runsTtlMs` after they ended; threads idle for
 * `idleForMs` keep their latest `keepCheckpoints` checkpoints. Swept every `sweepEveryMs` (10 min) by one
 * process of the cluster at a time. Each part is off unless set.
 *
 * @example
 * { "retention": { "runsTtlMs": 604800000, "keepCheckpoints": 20 } }
 */
export interface RetentionConfig {
  runsTtlMs?: number;
  keepCheckpoints?: number;
  /** Default 1 hour. */
  idleForMs?: number;
  /** Default 10 minutes. */
  sweepEveryMs?: number;
}

/**
 * One credential: an API key (`x-api-key` header) or a bearer token, and the user it stands for.
 * `role: "operator"` makes the user an operator: besides their own, they may list, read and delete every
 * user's threads, runs and crons (docs/server.md, Auth). A user whose credentials are all removed is
 * revoked: their crons stop running.
 *
 * @example
 * const ana: Credential = { user: "ana", apiKey: "$ANA_API_KEY" }; // read from the environment
 * const ops: Credential = { user: "ops", apiKey: "$OPS_KEY", role: "operator" };
 */
export interface Credential {
  user: string;
  apiKey?: string;
  token?: string;
  /** `"operator"`: may list and delete every user's threads, runs and crons. Default `"user"`. */
  role?: "user" | "operator";
}

/**
 * Auth settings; off by default (local development).
 *
 * @example
 * const auth: AuthConfig = { enabled: true, credentials: [{ user: "ana", apiKey: "$ANA_API_KEY" }] };
 * const server = await createServer({ graphs, auth });
 */
export interface AuthConfig {
  enabled: boolean;
  /** Known credentials. Entries may read secrets from the environment: `{ "apiKey": "$MY_KEY" }`. */
  credentials?: Credential[];
}

/**
 * Request and run limits.
 *
 * @example
 * const limits: LimitsConfig = { bodyBytes: 2 * 1024 * 1024, runTimeMs: 5 * 60_000, streamsPerUser: 20 };
 * const server = await createServer({ graphs, limits });
 */
export interface LimitsConfig {
  /** Largest request body in bytes. Default 1 MiB. */
  bodyBytes?: number;
  /** Largest thread state (JSON bytes) a run or update may produce. Default 8 MiB. */
  stateBytes?: number;
  /** Longest a run may take, in ms, before it is cancelled with status "timeout". Default 15 minutes. */
  runTimeMs?: number;
  /**
   * Streams one user may hold open at once with auth on: SSE run streams and WebSockets. The next one
   * is a 429 `TOO_MANY_REQUESTS`. Default 50.
   */
  streamsPerUser?: number;
  /** Runs one user may have queued (pending) at once with auth on; the next is a 429. Default 1,000. */
  queuedRunsPerUser?: number;
  /** Crons one user may have with auth on; the next is a 429. Default 100. */
  cronsPerUser?: number;
  /** Threads one user may have with auth on; the next is a 429. Default 10,000. */
  threadsPerUser?: number;
  /** Store items one user may have (Store API and `ctx.store`) with auth on; the next is a 429. Default 10,000. */
  storeItemsPerUser?: number;
  /** Bytes of store values (JSON) one user may have with auth on; a put past it is a 429. Default 100 MiB. */
  storeBytesPerUser?: number;
}

/**
 * The per-user limits of {@link LimitsConfig} (all whole numbers above 0), with their defaults.
 *
 * @example
 * USER_LIMIT_DEFAULTS.queuedRunsPerUser; // 1000
 */
export const USER_LIMIT_DEFAULTS = {
  streamsPerUser: 50,
  queuedRunsPerUser: 1_000,
  cronsPerUser: 100,
  threadsPerUser: 10_000,
  storeItemsPerUser: 10_000,
  storeBytesPerUser: 100 * 1024 * 1024,
} as const;

/**
 * A server's configuration, as read from `trellis.json` (LangGraph's `langgraph.json`, with Trellis's
 * saver, queue, auth and limits).
 *
 * @example
 * {
 *   "graphs": { "approval-flow": { "module": "./examples/src/approval-flow.ts", "graph": "buildGraph" } },
 *   "saver": { "kind": "sqlite", "path": ".trellis/trellis.sqlite" },
 *   "auth": { "enabled": true, "credentials": [{ "user": "ana", "apiKey": "$ANA_KEY" }] }
 * }
 */
export interface TrellisConfig {
  graphs: Record<string, GraphEntry>;
  saver?: SaverConfig;
  queue?: QueueConfig;
  auth?: AuthConfig;
  limits?: LimitsConfig;
  /** What the server deletes, and when (off unless set). */
  retention?: RetentionConfig;
  /** Semantic search and TTL of the Store API and of `ctx.store` (see {@link StoreConfig}). */
  store?: StoreConfig;
  /**
   * Origins (`https://app.example.com`, `"null"`, or `"*"` for any) whose browser pages may open the
   * server's WebSockets. Same-origin upgrades and upgrades without an `Origin` header (non-browser
   * clients) are always allowed. Default: none with auth on (cross-origin upgrades are a 403), any
   * with auth off.
   */
  allowedOrigins?: string[];
  /**
   * US dollars per million tokens, per model id (`gpt-4o-mini`), `provider:model`, or `*` for any
   * other: a run's `metadata.usage.cost_usd` is estimated from them (docs/observability.md).
   */
  prices?: ModelPrices;
  /** Port to listen on; the `PORT` environment variable wins. Default 8123. */
  port?: number;
  /** Interface to bind. Default 127.0.0.1. */
  host?: string;
  /** Directory that relative paths in this config are resolved against. Set by `loadConfig`. */
  baseDir?: string;
  /**
   * Environment variables the graphs' modules read (from a `langgraph.json`'s `env`): `trellis serve`
   * and `dev` set those the process does not have already, before loading the graphs.
   */
  env?: Record<string, string>;
}

/**
 * A config with every default filled in.
 *
 * @example
 * const config: ResolvedConfig = resolveConfig(await loadConfig("./trellis.json"), process.env);
 * console.log(config.saver.kind, config.queue.kind, config.limits.bodyBytes);
 */
export interface ResolvedConfig {
  graphs: Record<string, GraphEntry>;
  saver: SaverConfig;
  queue: QueueConfig;
  auth: {
    enabled: boolean;
    credentials: Credential[];
    /** Users with a credential of `role: "operator"`. */
    operators: string[];
  };
  limits: Required<LimitsConfig>;
  retention: RetentionSettings;
  /** Origins allowed to open WebSockets besides the server's own; null: any. */
  allowedOrigins: string[] | null;
  /** Model prices for cost estimates; null when none are set. */
  prices: ModelPrices | null;
  port: number;
  host: string;
  baseDir: string;
}

/**
 * Default location of the SQLite file, relative to the config file.
 *
 * @example
 * const path = join(dirname(resolve("trellis.json")), DEFAULT_SQLITE_PATH); // where the server's data lives
 */
export const DEFAULT_SQLITE_PATH = ".trellis/trellis.sqlite";
const MIB = 1024 * 1024;

/**
 * Reads and checks a `trellis.json` (or a LangGraph project's `langgraph.json`, see
 * {@link fromLangGraphJson}). Relative paths in it are resolved against its directory.
 *
 * @example
 * const config = await loadConfig("./trellis.json");
 * const server = await createServer(config);
 */
export async function loadConfig(path: string): Promise<TrellisConfig> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new TrellisError("INVALID_CONFIG", `Cannot read the server config ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new TrellisError("INVALID_CONFIG", `${file} is not valid JSON: ${(error as Error).message}`);
  }
  // a LangGraph project's langgraph.json: "./src/graph.ts:graph" entries, env, dependencies
  if (isLangGraphJson(raw)) raw = fromLangGraphJson(raw, file, dirname(file));
  return { ...checkConfig(raw, file), baseDir: dirname(file) };
}

/**
 * Fills in defaults and applies the environment (`PORT`, `TRELLIS_DATABASE_URL`, `TRELLIS_REDIS_URL`).
 *
 * @example
 * const resolved = resolveConfig({ graphs: {} }, process.env); // sqlite at .trellis/trellis.sqlite, port 8123
 */
export function resolveConfig(
  config: TrellisConfig,
  env: Record<string, string | undefined> = process.env,
): ResolvedConfig {
  checkConfig(config, "the server config");
  const baseDir = config.baseDir ?? process.cwd();
  let saver: SaverConfig = config.saver ?? { kind: "sqlite", path: DEFAULT_SQLITE_PATH };
  // the environment replaces the URL only: the schema (and the queue's prefix, concurrency and
  // heartbeats below) stay as configured
  if (env.TRELLIS_DATABASE_URL) {
    saver =
      saver.kind === "postgres"
        ? { ...saver, url: env.TRELLIS_DATABASE_URL }
        : { kind: "postgres", url: env.TRELLIS_DATABASE_URL };
  }
  if (saver.kind === "sqlite" && saver.path !== ":memory:" && !isAbsolute(saver.path)) {
    saver = { ...saver, path: resolve(baseDir, saver.path) };
  }
  let queue: QueueConfig = config.queue ?? { kind: "embedded" };
  if (env.TRELLIS_REDIS_URL) {
    queue =
      queue.kind === "redis"
        ? { ...queue, url: env.TRELLIS_REDIS_URL }
        : {
            kind: "redis",
            url: env.TRELLIS_REDIS_URL,
            ...(queue.concurrency !== undefined ? { concurrency: queue.concurrency } : {}),
          };
  }
  const port = env.PORT !== undefined && env.PORT !== "" ? Number(env.PORT) : (config.port ?? 8123);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TrellisError("INVALID_CONFIG", `PORT must be an integer from 0 to 65535, got ${String(env.PORT)}.`);
  }
  const authOn = config.auth?.enabled === true;
  const credentials = (config.auth?.credentials ?? []).flatMap((c) => expandCredential(c, env, authOn));
  return {
    graphs: config.graphs,
    saver,
    queue,
    auth: {
      enabled: config.auth?.enabled === true,
      credentials,
      operators: [...new Set(credentials.filter((c) => c.role === "operator").map((c) => c.user))],
    },
    limits: {
      ...USER_LIMIT_DEFAULTS,
      ...definedOf(config.limits ?? {}),
      bodyBytes: config.limits?.bodyBytes ?? MIB,
      stateBytes: config.limits?.stateBytes ?? 8 * MIB,
      runTimeMs: config.limits?.runTimeMs ?? 15 * 60_000,
    },
    allowedOrigins: config.allowedOrigins ?? (config.auth?.enabled === true ? [] : null),
    prices: config.prices ?? null,
    retention: {
      runsTtlMs: config.retention?.runsTtlMs ?? null,
      keepCheckpoints: config.retention?.keepCheckpoints ?? null,
      idleForMs: config.retention?.idleForMs ?? 60 * 60_000,
      sweepEveryMs: config.retention?.sweepEveryMs ?? 10 * 60_000,
    },
    port,
    host: config.host ?? "127.0.0.1",
    baseDir,
  };
}

/** The keys of `o` whose value is not undefined. */
function definedOf<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function expandCredential(c: Credential, env: Record<string, string | undefined>, strict: boolean): Credential[] {
  // With auth on, a credential that names a missing variable fails the start: dropping it would lock
  // its user out without a word, and an empty secret is no secret. With auth off credentials are unused.
  let unresolved = false;
  const expand = (v: string | undefined) => {
    if (!v?.startsWith("$")) return v;
    const name = v.slice(1);
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (!strict) {
      unresolved = true;
      return undefined;
    }
    throw new TrellisError(
      "INVALID_CONFIG",
      `The credential of user "${c.user}" reads the environment variable ${name}, which is ${value === undefined ? "not set" : "empty"}. Set it, or remove the credential.`,
      { details: { variable: name, user: c.user } },
    );
  };
  const out: Credential = { user: c.user };
  const apiKey = expand(c.apiKey);
  const token = expand(c.token);
  if (apiKey) out.apiKey = apiKey;
  if (token) out.token = token;
  if (c.role === "operator") out.role = "operator";
  return unresolved ? [] : [out];
}

function checkConfig(raw: unknown, where: string): TrellisConfig {
  const fail = (what: string): never => {
    throw new TrellisError("INVALID_CONFIG", `${where}: ${what}`);
  };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return fail("expected a JSON object.");
  const c = raw as Record<string, unknown>;
  if (typeof c.graphs !== "object" || c.graphs === null || Array.isArray(c.graphs)) {
    return fail('"graphs" must be an object mapping assistant ids to { module, graph }.');
  }
  for (const [id, entry] of Object.entries(c.graphs as Record<string, unknown>)) {
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(id)) fail(`assistant id "${id}" may hold only letters, digits, _ . -`);
    const e = entry as Record<string, unknown> | null;
    if (typeof e !== "object" || e === null || typeof e.module !== "string" || e.module === "") {
      fail(`graphs["${id}"] needs a "module" (package specifier or path).`);
    }
    for (const key of ["graph", "routes", "name", "description"] as const) {
      if (e?.[key] !== undefined && typeof e[key] !== "string") fail(`graphs["${id}"].${key} must be a string.`);
    }
    if (e?.routesAuth !== undefined && e.routesAuth !== "server" && e.routesAuth !== "app") {
      fail(`graphs["${id}"].routesAuth must be "server" or "app".`);
    }
  }
  const saver = c.saver as Record<string, unknown> | undefined;
  if (saver !== undefined) {
    if (saver.kind === "sqlite" && typeof saver.path !== "string") fail('saver "sqlite" needs a "path".');
    else if (saver.kind === "postgres" && typeof saver.url !== "string") fail('saver "postgres" needs a "url".');
    else if (saver.kind !== "sqlite" && saver.kind !== "postgres") fail('saver.kind must be "sqlite" or "postgres".');
  }
  const retention = c.retention as Record<string, unknown> | undefined;
  if (retention !== undefined) {
    if (typeof retention !== "object" || retention === null || Array.isArray(retention)) {
      fail("retention must be an object: { runsTtlMs, keepCheckpoints, idleForMs, sweepEveryMs }.");
    }
    for (const key of ["runsTtlMs", "keepCheckpoints", "idleForMs", "sweepEveryMs"] as const) {
      const v = retention?.[key];
      if (v !== undefined && !(typeof v === "number" && Number.isInteger(v) && v > 0)) {
        fail(`retention.${key} must be a whole number above 0.`);
      }
    }
  }
  const queue = c.queue as Record<string, unknown> | undefined;
  if (queue !== undefined && queue.kind !== "embedded" && queue.kind !== "redis") {
    fail('queue.kind must be "embedded" or "redis".');
  }
  const auth = c.auth as Record<string, unknown> | undefined;
  if (auth !== undefined) {
    if (typeof auth.enabled !== "boolean") fail("auth.enabled must be true or false.");
    if (auth.credentials !== undefined && !Array.isArray(auth.credentials)) fail("auth.credentials must be a list.");
    for (const cred of (auth.credentials as unknown[] | undefined) ?? []) {
      const k = cred as Record<string, unknown>;
      if (
        typeof k?.user !== "string" ||
        k.user === "" ||
        (typeof k.apiKey !== "string" && typeof k.token !== "string")
      ) {
        fail("each auth credential needs a user (not empty) and an apiKey or a token.");
      }
      if (k.role !== undefined && k.role !== "user" && k.role !== "operator") {
        fail(`the credential of user "${k.user}" has role ${JSON.stringify(k.role)}: use "user" or "operator".`);
      }
    }
  }
  const limits = c.limits as Record<string, unknown> | undefined;
  for (const key of Object.keys(USER_LIMIT_DEFAULTS)) {
    const v = limits?.[key];
    if (v !== undefined && !(typeof v === "number" && Number.isInteger(v) && v > 0)) {
      fail(`limits.${key} must be a whole number above 0.`);
    }
  }
  if (c.prices !== undefined) checkPrices(c.prices);
  if (c.allowedOrigins !== undefined) {
    if (!Array.isArray(c.allowedOrigins)) fail('allowedOrigins must be a list such as ["https://app.example.com"].');
    for (const origin of c.allowedOrigins as unknown[]) {
      if (typeof origin !== "string" || !isOrigin(origin)) {
        fail(
          `allowedOrigins: ${JSON.stringify(origin)} is not an origin; write scheme://host[:port] without a path (https://app.example.com), "null" or "*".`,
        );
      }
    }
  }
  return raw as TrellisConfig;
}

function isOrigin(value: string): boolean {
  if (value === "*" || value === "null") return true;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}
