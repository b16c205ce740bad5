import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RecordingServer, startRecordingServer } from "./test/recording-server.js";
import { tempDir } from "./test/test-app.js";

const dir = tempDir();
let telegram: RecordingServer | undefined;
afterAll(async () => {
  await telegram?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("trellis.json entry points", () => {
  it("a server loads the graph export and mounts the routes under /apps/twi-author/, which run on its run service", async () => {
    telegram = await startRecordingServer(() => ({ json: { ok: true, result: { message_id: 1 } } }));
    const tg = telegram;
    Object.assign(process.env, {
      TWI_DATA_DIR: dir,
      TWI_URL_SIGNING_SECRET: "entry-test-secret-0123456789",
      TELEGRAM_BOT_TOKEN: "1:t",
      TELEGRAM_API_BASE_URL: tg.url,
      TELEGRAM_WEBHOOK_SECRET: "entry-hook-secret",
    });
    const { createServer } = await import("@trellis/server");
    const { twiAuthorTasks } = await import("./server-entry.js");
    const server = await createServer(
      {
        graphs: {
          "twi-author": { module: "@trellis/app-twi-author", graph: "twiAuthorGraph", routes: "twiAuthorRoutes" },
        },
        saver: { kind: "sqlite", path: join(dir, "server.sqlite") },
        baseDir: process.cwd(),
      },
      { env: {} },
    );
    try {
      const hosted = server.graphs.get("twi-author");
      expect(hosted?.graph.checkpointer).toBe(server.saver);
      expect(hosted?.graph.getGraph().nodes.map((n: { id: string }) => n.id)).toEqual(
        expect.arrayContaining([
          "intent",
          "process_input",
          "generate",
          "review",
          "revise",
          "approve",
          "output",
          "audit",
          "clarify",
        ]),
      );
      const res = await server.app.request("/apps/twi-author/telegram/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "entry-hook-secret" },
        body: JSON.stringify({
          update_id: 1,
          message: { message_id: 3, chat: { id: 5 }, text: "Write a TWI for pallet wrapping" },
        }),
      });
      expect(res.status).toBe(200);
      await twiAuthorTasks.idle();
      // The conversation lives on the server's saver, as a thread of the server.
      const state = await hosted?.graph.getState({ threadId: "telegram-5-3" });
      expect(state?.next).toEqual(["review"]);
      expect((await server.app.request("/threads/telegram-5-3")).status).toBe(200);
      expect(tg.requests.map((r) => r.path)).toEqual(["/bot1:t/sendChatAction", "/bot1:t/sendMessage"]);
    } finally {
      await twiAuthorTasks.idle();
      await server.close();
    }
  });

  it("the routes export refuses to be built without a server's run service", async () => {
    const { loadGraphs } = await import("@trellis/server");
    const { MemorySaver } = await import("@trellis/core");
    await expect(
      loadGraphs(
        { "twi-author": { module: "@trellis/app-twi-author", graph: "twiAuthorGraph", routes: "twiAuthorRoutes" } },
        new MemorySaver(),
        process.cwd(),
      ),
    ).rejects.toMatchObject({ code: "INVALID_CONFIG" });
  });
});
