/**
 * The pipeline as the Agent Server API serves it: the Trellis server built from the repository's
 * `trellis.json` entry of `infra-pipeline` (only that graph, SQLite in a temporary directory, the
 * offline agents), reached through its HTTP routes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, loadConfig, type TrellisServer } from "@trellis/server";
import { vi } from "vitest";
import { ASSISTANT_ID } from "../graph.js";

const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

/** A server hosting the shipped `infra-pipeline` entry, and a thread helper. */
export interface ApiServer {
  server: TrellisServer;
  dir: string;
  post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
  get(path: string): Promise<{ status: number; json: Record<string, unknown> }>;
  /** A new thread; `wait(body)` runs `/threads/{id}/runs/wait` with the assistant on it. */
  /** Listens on 127.0.0.1 (a random port) for clients over HTTP, such as the official SDK; returns the URL. */
  listen(): Promise<string>;
  thread(): Promise<{
    id: string;
    wait(body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }>;
  }>;
  close(): Promise<void>;
}

/** Starts the server (environment stubbed for the offline agents; `env` adds variables). */
export async function startApiServer(env: Record<string, string> = {}): Promise<ApiServer> {
  const dir = mkdtempSync(join(tmpdir(), "infra-api-"));
  vi.stubEnv("INFRA_AGENT_DATA_DIR", join(dir, "data"));
  vi.stubEnv("INFRA_AGENT_MODEL_PROVIDER", "offline");
  vi.stubEnv("TRELLIS_MODEL_PROVIDER", "offline");
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  const config = await loadConfig(join(REPO_DIR, "trellis.json"));
  const entry = config.graphs[ASSISTANT_ID];
  if (!entry) throw new Error("trellis.json has no infra-pipeline entry");
  const server = await createServer(
    {
      graphs: { [ASSISTANT_ID]: entry },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      baseDir: REPO_DIR,
    },
    { env: {}, workers: 1 },
  );
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await server.app.request(path, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  return {
    server,
    dir,
    post: (path, body) => call("POST", path, body),
    get: (path) => call("GET", path),
    async listen() {
      return (await server.listen(0)).url;
    },
    async thread() {
      const id = String((await call("POST", "/threads", {})).json.thread_id);
      return { id, wait: (body) => call("POST", `/threads/${id}/runs/wait`, { assistant_id: ASSISTANT_ID, ...body }) };
    },
    async close() {
      await server.close();
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A request's first input, as a client sends it. */
export function requestInput(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messages: [{ role: "user", content: text }], ...extra };
}
