import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, type TrellisServer } from "@trellis/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let dir: string;
let server: TrellisServer | undefined;

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "tutor-rag-"));
  vi.stubEnv("TUTOR_DB_PATH", join(dir, "guides.sqlite"));
  vi.stubEnv("LLM_PROVIDER", "offline");
  vi.stubEnv("RAG_URL", `http://127.0.0.1:${await closedPort()}`);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

async function call(s: TrellisServer, path: string, body?: unknown) {
  const res = await s.app.request(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> & { message?: string } };
}

describe("with the retrieval service down (issue 23, tutor finding 3)", () => {
  it("the student is told of an outage, the failure is logged and counted on /health", async () => {
    const logged: string[] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
    server = await createServer(
      {
        graphs: { tutor: { module: "./src/server-entry.ts", graph: "buildGraph", routes: "buildRoutes" } },
        saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
        baseDir: APP_DIR,
      },
      { env: {}, workers: 1 },
    );
    const before = await call(server, "/apps/tutor/health");
    expect(before.json).toMatchObject({ status: "ok", retrieval: { kind: "remote", failures: 0 } });

    const reply = await call(server, "/apps/tutor/chat", {
      query: "¿Qué es un volumen?",
      id: "down",
      asignatura: "iv",
    });
    expect(reply.status).toBe(200);
    expect(reply.json.message).toContain("el servicio de búsqueda en los apuntes no está disponible");
    expect(reply.json.message).not.toContain("No he encontrado información");

    expect(logged.some((line) => /\[tutor\] retrieval failed \(remote\) for "¿Qué es un volumen\?"/.test(line))).toBe(
      true,
    );
    const after = await call(server, "/apps/tutor/health");
    expect(after.json).toMatchObject({
      status: "degraded",
      retrieval: { kind: "remote", searches: 1, failures: 1, last_failed: true },
    });
    expect((after.json.retrieval as { last_error: string }).last_error).toMatch(/RAG service at http:\/\/127\.0\.0\.1/);
  });
});
