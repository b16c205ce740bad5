/**
 * Issue 26, through the door: each webhook request writes one JSON line to the server's log — a
 * `webhook-received` line (info, stdout) with the thread it acts on, or a `webhook-refused` line (warn,
 * stderr) with the status and the reason — never the secret, a token or the body; and refused requests
 * of one reason cannot flood the log (10 lines a minute, the rest counted).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { captureProcessOutput, type Written } from "../test/process-output.js";
import { type RecordingServer, startRecordingServer } from "../test/recording-server.js";
import { type DoorServer, startDoorServer } from "../test/webhook-door.js";

const dataDir = mkdtempSync(join(tmpdir(), "twi-webhook-log-"));
const SECRET = "door-hook-secret-do-not-log";
const HOOK = "/apps/twi-author/telegram/webhook";
let telegram: RecordingServer;
let door: DoorServer;

beforeAll(async () => {
  let messageId = 700;
  telegram = await startRecordingServer((req) =>
    req.path.endsWith("/sendMessage")
      ? { json: { ok: true, result: { message_id: ++messageId } } }
      : { json: { ok: true, result: true } },
  );
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "door-test-secret-0123456789");
  vi.stubEnv("TELEGRAM_BOT_TOKEN", "4242:door-token");
  vi.stubEnv("TELEGRAM_API_BASE_URL", telegram.url);
  vi.stubEnv("TELEGRAM_WEBHOOK_SECRET", SECRET);
  // Teams without its check configured: the route answers 503
  vi.stubEnv("TEAMS_APP_ID", "");
  vi.stubEnv("TEAMS_APP_PASSWORD", "");
  for (const name of ["TEAMS_VERIFY_REQUESTS", "TEAMS_API_BASE_URL", "TWI_ALLOW_UNVERIFIED_WEBHOOKS"]) {
    vi.stubEnv(name, "");
  }
  vi.stubEnv("TRELLIS_LOG_FORMAT", "json");
  vi.stubEnv("TRELLIS_LOG_LEVEL", "info");
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  await telegram?.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The JSON lines the process writes while a test runs, with the stream each went to. */
let written: Written[];
let output: ReturnType<typeof captureProcessOutput>;
beforeEach(() => {
  output = captureProcessOutput();
  written = output.written;
});
afterEach(() => output.restore());

function webhookLines(): Array<Record<string, unknown> & { stream: string }> {
  return written
    .flatMap(({ stream, text }) => text.split("\n").map((line) => ({ stream, line })))
    .filter(({ line }) => line.startsWith("{"))
    .map(({ stream, line }): Record<string, unknown> & { stream: string } => ({
      stream,
      ...(JSON.parse(line) as Record<string, unknown>),
    }))
    .filter((e) => typeof e.event === "string" && /^(webhook-|log-suppressed)/.test(e.event));
}

const update = (id: number, text: string) => ({
  update_id: id,
  message: { message_id: id, chat: { id: 4242 }, from: { id: 7 }, text },
});

describe("the webhooks' log lines (issue 26)", () => {
  it("a forged Telegram update is one warn line (401, bad-secret); a good one an info line with its thread — neither holds the secret nor the body", async () => {
    const forged = await door.post(HOOK, update(1, "FORGED BODY TEXT"), {
      "x-telegram-bot-api-secret-token": "wrong-secret-guess",
    });
    expect(forged.status).toBe(401);
    const good = await door.post(HOOK, update(2, "/help PRIVATE BODY TEXT"), {
      "x-telegram-bot-api-secret-token": SECRET,
    });
    expect(good.status).toBe(200);
    const started = await door.post(HOOK, update(3, "Write a TWI for stacking pallets"), {
      "x-telegram-bot-api-secret-token": SECRET,
    });
    expect(started.status).toBe(200);
    const lines = webhookLines();
    expect(lines).toEqual([
      {
        stream: "stderr",
        ts: expect.any(String),
        app: "twi-author",
        level: "warn",
        event: "webhook-refused",
        channel: "telegram",
        route: "/telegram/webhook",
        status: 401,
        reason: "bad-secret",
      },
      {
        stream: "stdout",
        ts: expect.any(String),
        app: "twi-author",
        level: "info",
        event: "webhook-received",
        channel: "telegram",
        route: "/telegram/webhook",
        kind: "message",
      },
      expect.objectContaining({ event: "webhook-received", kind: "message", threadId: "telegram-4242-3" }),
    ]);
    const text = JSON.stringify(lines);
    for (const secret of [SECRET, "wrong-secret-guess", "BODY TEXT", "pallets", "4242:door-token"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("says why each refusal was refused: a malformed body (400), a webhook whose check is not configured (503)", async () => {
    expect((await door.post(HOOK, { not: "an update" }, { "x-telegram-bot-api-secret-token": SECRET })).status).toBe(
      400,
    );
    expect((await door.post("/apps/twi-author/teams/messages", { type: "message" })).status).toBe(503);
    expect(webhookLines().map((e) => [e.level, e.channel, e.status, e.reason])).toEqual([
      ["warn", "telegram", 400, "malformed-body"],
      ["warn", "teams", 503, "not-configured"],
    ]);
  });

  it("writes at most 10 refusal lines of one reason a minute, whatever is sent; other reasons and accepted updates still log", async () => {
    // a server of its own: its logger's minute starts with this flood, whatever the other tests logged
    const own = await startDoorServer();
    try {
      for (let i = 0; i < 25; i++) {
        const res = await own.post(HOOK, update(100 + i, "flood"), { "x-telegram-bot-api-secret-token": `guess-${i}` });
        expect(res.status).toBe(401);
      }
      const flood = webhookLines().filter((e) => e.reason === "bad-secret");
      expect(flood).toHaveLength(10);
      // the other reasons keep their own count, and a good update is never held back
      await own.post(HOOK, [], { "x-telegram-bot-api-secret-token": SECRET });
      await own.post(HOOK, update(200, "/start"), { "x-telegram-bot-api-secret-token": SECRET });
      expect(
        webhookLines()
          .slice(-2)
          .map((e) => e.reason ?? e.event),
      ).toEqual(["malformed-body", "webhook-received"]);
    } finally {
      await own.close();
    }
  });
});
