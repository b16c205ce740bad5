import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Where the Teams bot sends and how it authenticates (Bot Framework).
 *
 * @example
 * const teams: TeamsConfig = { appId: "…", appPassword: "…", apiBaseUrl: "http://127.0.0.1:3978" };
 */
export interface TeamsConfig {
  /** The bot's Microsoft app id; also the audience of incoming tokens. */
  appId: string | undefined;
  appPassword: string | undefined;
  /** Token endpoint of the app's credentials (client-credentials grant). */
  tokenUrl: string;
  /** Replaces each activity's `serviceUrl` for outgoing calls (a proxy, a local test server). */
  apiBaseUrl: string | undefined;
  /**
   * Hosts an activity's `serviceUrl` may name (replies go there, with the app's token): `host`,
   * `*.domain` (its subdomains), `host:port`. A pattern without a port allows only the scheme's
   * default port; `https` is required except on loopback hosts. Default {@link DEFAULT_SERVICE_URL_HOSTS}.
   */
  serviceUrlHosts: readonly string[];
  /** OpenID metadata that lists the keys signing incoming requests. */
  openIdMetadataUrl: string;
  /**
   * Check the Bot Framework JWT on incoming activities: on whenever an app id is set. Off only with
   * `TEAMS_VERIFY_REQUESTS=false` and {@link TwiConfig.unverifiedWebhooks}.
   */
  verifyRequests: boolean;
}

/**
 * The Bot Framework's service URL hosts: Teams (public cloud, GCC, GCC High, DoD) and the Bot
 * Framework's own channels. Not `*.trafficmanager.net`: anyone can create a name there.
 */
export const DEFAULT_SERVICE_URL_HOSTS: readonly string[] = [
  "smba.trafficmanager.net",
  "*.botframework.com",
  "*.teams.microsoft.com",
  "*.teams.microsoft.us",
  "*.botframework.us",
];

/**
 * The value of `TWI_ALLOW_UNVERIFIED_WEBHOOKS` that lets webhooks whose check is not configured
 * answer anyway (local development, the Bot Framework Emulator). Any other value is an error.
 */
export const UNVERIFIED_WEBHOOKS_OPT_IN = "i-understand-anyone-can-call-these";

/**
 * Where the Telegram bot sends.
 *
 * @example
 * const telegram: TelegramConfig = { botToken: "123:abc", apiBaseUrl: "https://api.telegram.org", webhookSecret: "s", tenantId: "telegram" };
 */
export interface TelegramConfig {
  botToken: string | undefined;
  /** Bot API root; requests go to `<apiBaseUrl>/bot<token>/<method>`. */
  apiBaseUrl: string;
  /**
   * Checked against the `X-Telegram-Bot-Api-Secret-Token` header. Unset, the webhook answers 503
   * unless {@link TwiConfig.unverifiedWebhooks}.
   */
  webhookSecret: string | undefined;
  /** `tenant_id` of Telegram conversations (Telegram has no tenants). */
  tenantId: string;
}

/**
 * The app's settings.
 *
 * @example
 * const config = loadTwiConfig(process.env);
 */
export interface TwiConfig {
  /** Root of the app's files. Default `./.twi-author`. */
  dataDir: string;
  /** SQLite file of the checkpoints (the paused conversations). */
  checkpointDb: string;
  /** SQLite file of `audit_log`, used unless `auditDatabaseUrl` is set. */
  auditDb: string;
  /** PostgreSQL connection string for `audit_log`. */
  auditDatabaseUrl: string | undefined;
  /** Directory of the PDFs (the filesystem store). */
  blobDir: string;
  /**
   * Where the PDFs go: the filesystem store (default, links signed by this app) or an Azure Storage
   * account (`TWI_BLOB_STORE=azure`: SAS links signed with the account key).
   */
  blobStore: { kind: "fs" } | { kind: "azure"; connectionString: string; container: string };
  /** Public address of the app's routes (the server mounts them under `/apps/twi-author`). */
  publicBaseUrl: string;
  /** HMAC key of the PDF links. */
  signingSecret: string;
  /** Validity of a PDF link. Default 24 hours. */
  urlTtlMs: number;
  /** `tenant_id` of CLI conversations. */
  defaultTenantId: string;
  /**
   * `TWI_ALLOW_UNVERIFIED_WEBHOOKS=i-understand-anyone-can-call-these`: webhooks whose check is not
   * configured accept anyone's requests instead of answering 503. For local development only: whoever
   * reaches the server can then act as any Teams or Telegram user.
   */
  unverifiedWebhooks: boolean;
  teams: TeamsConfig;
  telegram: TelegramConfig;
}

type Env = Readonly<Record<string, string | undefined>>;

function read(env: Env, key: string): string | undefined {
  const v = env[key]?.trim();
  return v === undefined || v === "" ? undefined : v;
}

/**
 * The HMAC key: `TWI_URL_SIGNING_SECRET`, else a random key kept in `<dataDir>/url-signing.key`
 * (created on first use, mode 0600), so links stay valid across restarts.
 *
 * @example
 * const secret = signingSecretFor("./.twi-author", process.env);
 */
export function signingSecretFor(dataDir: string, env: Env): string {
  const given = read(env, "TWI_URL_SIGNING_SECRET");
  if (given !== undefined) return given;
  const file = join(dataDir, "url-signing.key");
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (error) {
      // Another process wrote it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    return readFileSync(file, "utf8").trim();
  }
}

/**
 * Reads the settings from environment variables (all optional):
 *
 * | variable | default |
 * |---|---|
 * | `TWI_DATA_DIR` | `./.twi-author` |
 * | `TWI_CHECKPOINT_DB` | `<data>/checkpoints.sqlite` |
 * | `TWI_AUDIT_DB` / `TWI_AUDIT_DATABASE_URL` | `<data>/audit.sqlite` / unset (PostgreSQL when set) |
 * | `TWI_BLOB_DIR` | `<data>/blobs` |
 * | `TWI_BLOB_STORE` | `fs`; `azure` with `TWI_AZURE_STORAGE_CONNECTION_STRING` (or `AZURE_STORAGE_CONNECTION_STRING`) and `TWI_AZURE_STORAGE_CONTAINER` (`twi-documents`) |
 * | `TWI_PUBLIC_BASE_URL` | `http://127.0.0.1:8123/apps/twi-author` |
 * | `TWI_URL_SIGNING_SECRET`, `TWI_URL_TTL_SECONDS` | key file in the data dir, 86400 |
 * | `TWI_TENANT_ID` | `local` |
 * | `TEAMS_APP_ID`, `TEAMS_APP_PASSWORD`, `TEAMS_TOKEN_URL`, `TEAMS_API_BASE_URL`, `TEAMS_OPENID_METADATA_URL`, `TEAMS_SERVICE_URL_HOSTS`, `TEAMS_VERIFY_REQUESTS` | Bot Framework |
 * | `TELEGRAM_BOT_TOKEN`, `TELEGRAM_API_BASE_URL`, `TELEGRAM_WEBHOOK_SECRET`, `TELEGRAM_TENANT_ID` | Telegram |
 * | `TWI_ALLOW_UNVERIFIED_WEBHOOKS` | unset: a webhook without its check configured answers 503 |
 *
 * Throws when `TWI_ALLOW_UNVERIFIED_WEBHOOKS` holds anything but `i-understand-anyone-can-call-these`,
 * or `TEAMS_VERIFY_REQUESTS=false` is set without it.
 *
 * @example
 * const config = loadTwiConfig({ TWI_DATA_DIR: "/var/lib/twi" });
 */
export function loadTwiConfig(env: Env = process.env): TwiConfig {
  const dataDir = resolve(read(env, "TWI_DATA_DIR") ?? ".twi-author");
  const ttl = Number(read(env, "TWI_URL_TTL_SECONDS") ?? 86_400);
  if (!Number.isFinite(ttl) || ttl <= 0) throw new Error("TWI_URL_TTL_SECONDS must be a positive number of seconds.");
  const appId = read(env, "TEAMS_APP_ID");
  const optIn = read(env, "TWI_ALLOW_UNVERIFIED_WEBHOOKS");
  if (optIn !== undefined && optIn !== UNVERIFIED_WEBHOOKS_OPT_IN) {
    throw new Error(
      `TWI_ALLOW_UNVERIFIED_WEBHOOKS lets anyone who reaches the server act as any Teams or Telegram user; to opt in (local development only) set it to exactly "${UNVERIFIED_WEBHOOKS_OPT_IN}", otherwise unset it. Got "${optIn}".`,
    );
  }
  const unverifiedWebhooks = optIn !== undefined;
  const verify = read(env, "TEAMS_VERIFY_REQUESTS")?.toLowerCase();
  const verifyOff = verify === "false" || verify === "0";
  if (verifyOff && !unverifiedWebhooks) {
    throw new Error(
      `TEAMS_VERIFY_REQUESTS=${verify} turns off the check of incoming Teams activities: anyone could act as any Teams user. For local development (the Bot Framework Emulator) set TWI_ALLOW_UNVERIFIED_WEBHOOKS=${UNVERIFIED_WEBHOOKS_OPT_IN} too; otherwise unset TEAMS_VERIFY_REQUESTS.`,
    );
  }
  const hosts = read(env, "TEAMS_SERVICE_URL_HOSTS")
    ?.split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "");
  return {
    dataDir,
    checkpointDb: resolve(read(env, "TWI_CHECKPOINT_DB") ?? join(dataDir, "checkpoints.sqlite")),
    auditDb: resolve(read(env, "TWI_AUDIT_DB") ?? join(dataDir, "audit.sqlite")),
    auditDatabaseUrl: read(env, "TWI_AUDIT_DATABASE_URL"),
    blobDir: resolve(read(env, "TWI_BLOB_DIR") ?? join(dataDir, "blobs")),
    blobStore: blobStoreFrom(env),
    publicBaseUrl: (read(env, "TWI_PUBLIC_BASE_URL") ?? "http://127.0.0.1:8123/apps/twi-author").replace(/\/+$/, ""),
    signingSecret: signingSecretFor(dataDir, env),
    urlTtlMs: ttl * 1000,
    defaultTenantId: read(env, "TWI_TENANT_ID") ?? "local",
    unverifiedWebhooks,
    teams: {
      appId,
      appPassword: read(env, "TEAMS_APP_PASSWORD"),
      tokenUrl: read(env, "TEAMS_TOKEN_URL") ?? "https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token",
      apiBaseUrl: read(env, "TEAMS_API_BASE_URL"),
      serviceUrlHosts: hosts && hosts.length > 0 ? hosts : DEFAULT_SERVICE_URL_HOSTS,
      openIdMetadataUrl:
        read(env, "TEAMS_OPENID_METADATA_URL") ?? "https://login.botframework.com/v1/.well-known/openidconfiguration",
      verifyRequests: appId !== undefined && !verifyOff,
    },
    telegram: {
      botToken: read(env, "TELEGRAM_BOT_TOKEN"),
      apiBaseUrl: (read(env, "TELEGRAM_API_BASE_URL") ?? "https://api.telegram.org").replace(/\/+$/, ""),
      webhookSecret: read(env, "TELEGRAM_WEBHOOK_SECRET"),
      tenantId: read(env, "TELEGRAM_TENANT_ID") ?? "telegram",
    },
  };
}

/** Reads `TWI_BLOB_STORE` and the Azure settings; throws naming what is missing or wrong. */
function blobStoreFrom(env: Env): TwiConfig["blobStore"] {
  const kind = (read(env, "TWI_BLOB_STORE") ?? "fs").toLowerCase();
  if (kind === "fs") return { kind: "fs" };
  if (kind !== "azure") throw new Error(`TWI_BLOB_STORE must be fs (the default) or azure, got "${kind}".`);
  const connectionString =
    read(env, "TWI_AZURE_STORAGE_CONNECTION_STRING") ?? read(env, "AZURE_STORAGE_CONNECTION_STRING");
  if (!connectionString) {
    throw new Error(
      "TWI_BLOB_STORE=azure needs the storage account's connection string in TWI_AZURE_STORAGE_CONNECTION_STRING (or AZURE_STORAGE_CONNECTION_STRING), with its account key: the key signs the 24-hour SAS links.",
    );
  }
  return { kind: "azure", connectionString, container: read(env, "TWI_AZURE_STORAGE_CONTAINER") ?? "twi-documents" };
}
