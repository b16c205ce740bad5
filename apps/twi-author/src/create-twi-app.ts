import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { type CheckpointSaver, type Clock, systemClock } from "@trellis/core";
import type { ChatModel } from "@trellis/models";
import type { TrellisServer } from "@trellis/server";
import type { AuditStore } from "./audit/audit-store.js";
import { PostgresAuditStore } from "./audit/postgres-audit-store.js";
import { SqliteAuditStore } from "./audit/sqlite-audit-store.js";
import { loadTwiConfig, type TwiConfig } from "./config.js";
import { buildTwiGraph, type TwiGraph, type TwiServices } from "./graph.js";
import { twiModelFromEnv } from "./model-from-env.js";
import { HtmlPdfRenderer, type PdfRenderer } from "./pdf/twi-pdf-renderer.js";
import { openTwiServer } from "./runtime/in-process-server.js";
import { AzureBlobStorage } from "./storage/azure-blob-storage.js";
import type { BlobStorage } from "./storage/blob-storage.js";
import { FsBlobStorage } from "./storage/fs-blob-storage.js";
import { UrlSigner } from "./storage/url-signer.js";
import { TwiAssistant } from "./twi-assistant.js";

/**
 * Options of {@link createTwiApp}: everything defaults from the environment.
 *
 * @example
 * createTwiApp({ env: { TWI_DATA_DIR: dir }, model: new ScriptedChatModel([...]) });
 */
export interface TwiAppOptions {
  /** Settings; default `loadTwiConfig(env)`. */
  config?: TwiConfig;
  /** Environment to read settings and the model from. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  model?: ChatModel;
  /** Default: a `SqliteSaver` on `config.checkpointDb`. */
  checkpointer?: CheckpointSaver;
  /** Default: PostgreSQL when `config.auditDatabaseUrl` is set, else SQLite on `config.auditDb`. */
  audit?: AuditStore;
  pdf?: PdfRenderer;
  clock?: Clock;
}

/**
 * The assembled app: settings, services, the compiled graph and the assistant on it. The assistant
 * runs conversations through a Trellis server opened in this process on first use (on
 * `config.checkpointDb`), the same run path as the webhooks of a served app.
 *
 * @example
 * const app = createTwiApp();
 * await app.assistant.start({ … });
 * await app.close();
 */
export interface TwiApp {
  config: TwiConfig;
  services: TwiServices;
  blobs: BlobStorage;
  signer: UrlSigner;
  /** The compiled graph on the app's saver: for reading state; runs go through `assistant`. */
  graph: TwiGraph;
  assistant: TwiAssistant;
  /** The in-process Trellis server the assistant runs on (opened on first use). */
  server(): Promise<TrellisServer>;
  /** Closes what the app opened (the in-process server, the SQLite files, the PostgreSQL pool). */
  close(): Promise<void>;
}

/**
 * Builds the app: SQLite checkpoints and audit log under the data dir (PostgreSQL audit when
 * configured), filesystem blobs with HMAC-signed links, the HTML/CSS PDF renderer, and the model the
 * environment names (the offline model by default).
 *
 * @example
 * const app = createTwiApp({ env: { TWI_DATA_DIR: "/tmp/twi" } });
 * const view = await app.assistant.start({ conversation_id: "c1", user_id: "u1", tenant_id: "acme", channel: "cli", message: "Write a TWI for pallet wrapping" });
 */
export function createTwiApp(options: TwiAppOptions = {}): TwiApp {
  const env = options.env ?? process.env;
  const config = options.config ?? loadTwiConfig(env);
  const clock = options.clock ?? systemClock;
  const ownsSaver = options.checkpointer === undefined;
  const checkpointer = options.checkpointer ?? new SqliteSaver({ filename: config.checkpointDb });
  const ownsAudit = options.audit === undefined;
  const audit =
    options.audit ??
    (config.auditDatabaseUrl
      ? new PostgresAuditStore({ url: config.auditDatabaseUrl, clock })
      : new SqliteAuditStore({ filename: config.auditDb, clock }));
  const signer = new UrlSigner({ secret: config.signingSecret, ttlMs: config.urlTtlMs, clock });
  const store = config.blobStore;
  const blobs =
    store.kind === "azure"
      ? new AzureBlobStorage({
          connectionString: store.connectionString,
          container: store.container,
          ttlMs: config.urlTtlMs,
          now: () => clock.now(),
        })
      : new FsBlobStorage({ dir: config.blobDir, baseUrl: config.publicBaseUrl, signer });
  const services: TwiServices = {
    model: options.model ?? twiModelFromEnv(env),
    pdf: options.pdf ?? new HtmlPdfRenderer(),
    blobs,
    audit,
    clock,
  };
  const graph = buildTwiGraph(services, { checkpointer });
  let server: Promise<TrellisServer> | undefined;
  const openServer = () => {
    server ??= openTwiServer({ graph, dbPath: config.checkpointDb });
    return server;
  };
  const assistant = new TwiAssistant({ runs: async () => (await openServer()).runs, now: () => new Date(clock.now()) });
  return {
    config,
    services,
    blobs,
    signer,
    graph,
    assistant,
    server: openServer,
    async close() {
      const opened = server;
      server = undefined;
      if (opened) await (await opened.catch(() => undefined))?.close();
      if (ownsAudit) await audit.close();
      if (ownsSaver && checkpointer instanceof SqliteSaver) await checkpointer.close();
    },
  };
}
