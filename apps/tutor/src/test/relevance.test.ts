import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, type TrellisServer } from "@trellis/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let dir: string;
let server: TrellisServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tutor-relevance-"));
  vi.stubEnv("TUTOR_DB_PATH", join(dir, "guides.sqlite"));
  vi.stubEnv("LLM_PROVIDER", "offline");
  vi.stubEnv("RAG_URL", "");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

async function call(s: TrellisServer, path: string, body: unknown) {
  const res = await s.app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { message?: string; results?: { metadata: { concepto: string } }[] };
}

const CI = "¿Cómo funciona la integración continua con tests automáticos?";

describe("retrieval has a relevance cut-off (issue 23, tutor finding 4)", () => {
  it("continuous integration under DS (whose notes do not cover it) finds nothing, not test doubles", async () => {
    server = await createServer(
      {
        graphs: { tutor: { module: "./src/server-entry.ts", graph: "buildGraph", routes: "buildRoutes" } },
        saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
        baseDir: APP_DIR,
      },
      { env: {}, workers: 1 },
    );
    const ds = await call(server, "/apps/tutor/chat", { query: CI, id: "ds", asignatura: "DS" });
    expect(ds.message).toMatch(/^No he encontrado información sobre eso en los apuntes/);
    expect(ds.message).not.toMatch(/doble|stub|prueba unitaria/i);
    expect((await call(server, "/apps/tutor/search", { query: CI, asignatura: "DS" })).results).toEqual([]);

    // The subject that covers it still answers it.
    const iv = await call(server, "/apps/tutor/chat", { query: CI, id: "iv", asignatura: "iv" });
    expect(iv.message).toContain("La integración continua es la práctica de fusionar los cambios");
    const hits = (await call(server, "/apps/tutor/search", { query: CI, asignatura: "iv" })).results ?? [];
    expect(hits[0]?.metadata.concepto).toBe("integración continua");
  });
});
