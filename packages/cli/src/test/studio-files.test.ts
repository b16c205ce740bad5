import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "@trellis/server";
import { afterAll, describe, expect, it, vi } from "vitest";
import { studioFiles } from "../studio-files.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-studio-files-"));
mkdirSync(join(dir, "assets"));
writeFileSync(join(dir, "index.html"), "<!doctype html><title>Trellis Studio</title>");
writeFileSync(join(dir, "assets/app-1.js"), "console.log(1)");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the studio's file server", () => {
  it("answers a malformed path with a 400 JSON error and logs nothing", async () => {
    const server = await createServer(
      {
        graphs: {},
        saver: { kind: "sqlite", path: ":memory:" },
        auth: { enabled: true, credentials: [{ user: "a", apiKey: "k" }] },
      },
      { env: {}, publicRoutes: [{ path: "/studio", app: studioFiles(dir) }] },
    );
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      for (const path of ["/studio/%E0%A4%A", "/studio/assets/%FF.js", "/studio/%"]) {
        const res = await server.app.request(path);
        expect([path, res.status, ((await res.json()) as { error: string }).error]).toEqual([
          path,
          400,
          "INVALID_ARGUMENT",
        ]);
      }
      expect(logged).not.toHaveBeenCalled();
      // well-formed paths still work
      expect((await server.app.request("/studio/assets/app-1.js")).status).toBe(200);
      expect(await (await server.app.request("/studio/deep/link")).text()).toContain("Trellis Studio");
      expect((await server.app.request("/studio/assets/%61pp-1.js")).status).toBe(200);
    } finally {
      logged.mockRestore();
      await server.close();
    }
  });

  it("answers a malformed path with a 400 on its own too (without the server's error handler)", async () => {
    const res = await studioFiles(dir).request("/studio/%E0%A4%A");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("INVALID_ARGUMENT");
  });
});
