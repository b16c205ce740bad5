/**
 * Issue 22, twi-author finding 3: an ask-back draft (only questions, no instruction) is not a TWI
 * instruction and must never be published as "human checked and approved". Approving it — over the
 * Agent Server API, or with a Telegram approve button — re-asks at the same review pause with the
 * reason; nothing is published and no audit row is written. Answering the questions (a revision
 * request) still works.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SqliteAuditStore } from "../audit/sqlite-audit-store.js";
import { type RecordingServer, startRecordingServer } from "../test/recording-server.js";
import { type DoorServer, startDoorServer } from "../test/webhook-door.js";
import { pauseTag } from "../twi-assistant.js";

const ASK_BACK_REQUEST = "Írj TWI-t a festőkabin tisztításáról.";
const dataDir = mkdtempSync(join(tmpdir(), "twi-ask-back-"));
const TOKEN = "4343:ask-token";
const SECRET = "ask-back-secret";
let telegram: RecordingServer;
let door: DoorServer;

beforeAll(async () => {
  telegram = await startRecordingServer((req) =>
    req.path.endsWith("/sendMessage")
      ? { json: { ok: true, result: { message_id: 900 } } }
      : { json: { ok: true, result: true } },
  );
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "ask-back-secret-0123456789");
  vi.stubEnv("TELEGRAM_BOT_TOKEN", TOKEN);
  vi.stubEnv("TELEGRAM_API_BASE_URL", telegram.url);
  vi.stubEnv("TELEGRAM_WEBHOOK_SECRET", SECRET);
  for (const name of ["TWI_AUDIT_DATABASE_URL", "TWI_ALLOW_UNVERIFIED_WEBHOOKS", "TWI_MODEL_PROVIDER"]) {
    vi.stubEnv(name, "");
  }
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  await telegram?.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

async function api(path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${door.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function auditRows(): Promise<number> {
  const audit = new SqliteAuditStore({ filename: join(dataDir, "audit.sqlite") });
  try {
    return (await audit.list()).length;
  } finally {
    await audit.close();
  }
}

type Values = {
  status: string;
  draft: string | null;
  pdf_url: string | null;
  messages: Array<{ role: string; content: unknown }>;
};

describe("an ask-back draft cannot be approved", () => {
  it("over the Agent Server API: approving it re-asks at the review pause with the reason; nothing is published", async () => {
    const threadId = String((await api("/threads", {})).json.thread_id);
    const run = (body: Record<string, unknown>) =>
      api(`/threads/${threadId}/runs/wait`, { assistant_id: "twi-author", ...body });
    await run({ input: { user_id: "u", tenant_id: "acme", channel: "cli", message: ASK_BACK_REQUEST } });
    const asked = (await api(`/threads/${threadId}/state`)).json as { values: Values; next: string[] };
    expect(asked.next).toEqual(["review"]);
    expect(asked.values.draft).toContain("KIEGÉSZÍTŐ INFORMÁCIÓ SZÜKSÉGES");

    await run({ command: { update: { status: "approved" } } });
    const after = (await api(`/threads/${threadId}/state`)).json as { values: Values; next: string[] };
    expect(after.next).toEqual(["review"]);
    expect(after.values.status).toBe("review_needed");
    expect(after.values.pdf_url).toBeNull();
    expect(String(after.values.messages.at(-1)?.content)).toMatch(/nem hagyható jóvá/);

    // Even a final approval sent straight after: the conversation is at review, nothing is published.
    await run({ command: { update: { status: "approved", approval_timestamp: "2026-01-02T10:00:00.000Z" } } });
    const still = (await api(`/threads/${threadId}/state`)).json as { values: Values; next: string[] };
    expect(still.next).toEqual(["review"]);
    expect(still.values.pdf_url).toBeNull();
    expect(await auditRows()).toBe(0);

    // The questions answered as a revision request: a real draft, which can then be approved.
    await run({
      command: {
        update: {
          status: "revision_requested",
          revision_feedback: [
            "Lépések: 1. Kapcsolja ki az elszívást (a főkapcsolón), mert a ventilátor beszívhatja a rongyot.",
            "2. Kaparja le a festéket (műanyag kaparóval), mert a fém megsérti a falat.",
            "Eszközök: műanyag kaparó, rongy.",
            "Biztonság: légzésvédő maszk kötelező.",
            "Ellenőrzés: a falon nem marad festékréteg.",
          ].join(" "),
        },
      },
    });
    await run({ command: { update: { status: "approved" } } });
    expect(((await api(`/threads/${threadId}/state`)).json as { next: string[] }).next).toEqual(["approve"]);
  });

  it("from Telegram: no approve button on an ask-back draft, and a pressed approve is refused with the reason", async () => {
    const tg = (update: Record<string, unknown>) =>
      door.post("/apps/twi-author/telegram/webhook", update, { "x-telegram-bot-api-secret-token": SECRET });
    await tg({ update_id: 1, message: { message_id: 7, chat: { id: 4343 }, from: { id: 9 }, text: ASK_BACK_REQUEST } });
    const thread = "telegram-4343-7";
    const sent = telegram.requests.filter((r) => r.path === `/bot${TOKEN}/sendMessage`);
    const shown = sent.at(-1)?.body as { reply_markup?: { inline_keyboard: Array<Array<{ callback_data: string }>> } };
    const buttons = shown.reply_markup?.inline_keyboard[0]?.map((b) => b.callback_data) ?? [];
    expect(buttons.some((b) => b.startsWith("twi:a:"))).toBe(false);

    // An approve button crafted for this pause (an old client, a replayed press): refused, nothing changes.
    const before = await door.thread(thread);
    const state = await api(`/threads/${thread}/state`);
    const tag = pauseTag(String((state.json.checkpoint as { checkpoint_id: string }).checkpoint_id));
    await tg({
      update_id: 2,
      callback_query: {
        id: "cb-1",
        from: { id: 9 },
        message: { message_id: 900, chat: { id: 4343 } },
        data: `twi:a:${tag}:${thread}`,
      },
    });
    const reply = telegram.requests.filter((r) => r.path === `/bot${TOKEN}/sendMessage`).at(-1)?.body as {
      text: string;
    };
    expect(reply.text).toMatch(/nem hagyható jóvá/);
    expect(await door.thread(thread)).toEqual(before);
    expect(await auditRows()).toBe(0);
  });
});
