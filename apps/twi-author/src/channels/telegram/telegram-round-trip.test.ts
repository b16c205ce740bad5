import { afterEach, describe, expect, it } from "vitest";
import { type RecordingServer, startRecordingServer } from "../../test/recording-server.js";
import { createTestApp, PALLET_REQUEST, type TestApp } from "../../test/test-app.js";
import { BackgroundTasks } from "../background-tasks.js";
import { createTwiRoutes } from "../twi-routes.js";
import { splitForTelegram } from "./telegram-client.js";
import type { TelegramUpdate } from "./telegram-types.js";

const TOKEN = "123456:test-token";
const CHAT = 4242;

let server: RecordingServer;
let app: TestApp;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function setup() {
  let messageId = 100;
  server = await startRecordingServer((req) =>
    req.path.endsWith("/sendMessage")
      ? { json: { ok: true, result: { message_id: ++messageId, chat: { id: CHAT } } } }
      : { json: { ok: true, result: true } },
  );
  cleanup.push(() => server.close());
  app = createTestApp({
    env: {
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_BASE_URL: server.url,
      TELEGRAM_WEBHOOK_SECRET: "hook-secret",
      TELEGRAM_TENANT_ID: "acme-telegram",
    },
  });
  cleanup.push(() => app.dispose());
  const tasks = new BackgroundTasks((e) => {
    throw e;
  });
  const routes = createTwiRoutes({
    assistant: app.assistant,
    blobs: app.blobs,
    signer: app.signer,
    config: app.config,
    tasks,
  });
  let updateId = 0;
  const post = async (update: Omit<TelegramUpdate, "update_id">, secret = "hook-secret") => {
    const res = await routes.request("/telegram/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
      body: JSON.stringify({ update_id: ++updateId, ...update }),
    });
    await tasks.idle();
    return res;
  };
  return { post, routes };
}

type Sent = { method: string; body: Record<string, unknown> };
function calls(): Sent[] {
  return server.requests.map((r) => ({
    method: r.path.replace(`/bot${TOKEN}/`, ""),
    body: r.body as Record<string, unknown>,
  }));
}
function lastMessage(): Sent["body"] & { text: string; reply_markup?: Record<string, unknown> } {
  const m = calls()
    .filter((c) => c.method === "sendMessage")
    .at(-1);
  if (!m) throw new Error("nothing sent");
  return m.body as Sent["body"] & { text: string };
}
function buttons(): Array<{ text: string; callback_data: string }> {
  const markup = lastMessage().reply_markup as {
    inline_keyboard?: Array<Array<{ text: string; callback_data: string }>>;
  };
  return markup?.inline_keyboard?.[0] ?? [];
}
function press(data: string, messageId = 101) {
  return {
    callback_query: {
      id: `cb-${data}`,
      from: { id: 7, first_name: "Anna" },
      message: { message_id: messageId, chat: { id: CHAT } },
      data,
    },
  };
}

describe("Telegram round trip (webhook updates in, inline keyboards out)", () => {
  it("message → draft with keyboard → revise by reply → approve → final approve → PDF link", async () => {
    const { post, routes } = await setup();
    const res = await post({ message: { message_id: 5, chat: { id: CHAT }, from: { id: 7 }, text: PALLET_REQUEST } });
    expect(res.status).toBe(200);
    expect(calls().map((c) => c.method)).toEqual(["sendChatAction", "sendMessage"]);
    expect(lastMessage().chat_id).toBe(CHAT);
    expect(lastMessage().text).toContain("⚠️ AI által generált tartalom — emberi felülvizsgálat szükséges.");
    // Each button names the pause (a tag of its interrupt id) it was shown for.
    const review = buttons().map((b) => b.callback_data);
    expect(review).toEqual([
      expect.stringMatching(/^twi:a:[0-9a-f]{12}:telegram-4242-5$/),
      expect.stringMatching(/^twi:r:[0-9a-f]{12}:telegram-4242-5$/),
      expect.stringMatching(/^twi:x:[0-9a-f]{12}:telegram-4242-5$/),
    ]);
    const tag = review[0]?.split(":")[2];

    // "Request revision": the bot asks for the feedback as a reply to a tagged prompt.
    await post(press(review[1] ?? ""));
    expect(calls().at(-2)).toEqual({
      method: "answerCallbackQuery",
      body: { callback_query_id: `cb-${review[1]}` },
    });
    const prompt = lastMessage();
    expect(prompt.text).toContain(`[#twi:${tag}:telegram-4242-5]`);
    expect(prompt.reply_markup).toMatchObject({ force_reply: true });
    await post({
      message: {
        message_id: 6,
        chat: { id: CHAT },
        from: { id: 7 },
        text: "Új lépés: Ellenőrizze a címkét a szállítólevéllel (a rendelésszámot is), mert a téves címke visszáruhoz vezet",
        reply_to_message: { message_id: 102, chat: { id: CHAT }, text: prompt.text },
      },
    });
    expect(lastMessage().text).toContain("Javított vázlat (1. revízió)");
    expect(lastMessage().text).toContain("6. lépés: Ellenőrizze a címkét a szállítólevéllel.");
    expect((await app.assistant.state("telegram-4242-5")).revision_count).toBe(1);

    await post(press(buttons()[0]?.callback_data ?? ""));
    expect(calls().some((c) => c.method === "editMessageReplyMarkup")).toBe(true);
    const final = buttons().map((b) => b.callback_data);
    expect(final).toEqual([expect.stringMatching(/^twi:f:[0-9a-f]{12}:telegram-4242-5$/)]);

    await post(press(final[0] ?? ""));
    const done = lastMessage().text;
    expect(done).toMatch(/^✅ A munkautasítás jóváhagyva\./);
    const link = new URL(done.split(": ").at(-1) ?? "");
    const pdf = await routes.request(`${link.pathname.replace("/apps/twi-author", "")}${link.search}`);
    expect(pdf.status).toBe(200);
    expect(await app.services.audit.get("telegram-4242-5")).toMatchObject({
      channel: "telegram",
      tenant_id: "acme-telegram",
      user_id: "7",
      revision_count: 1,
      status: "completed",
    });
  });

  it("reject ends the conversation; a press from another chat or a wrong secret is refused", async () => {
    const { post } = await setup();
    await post({ message: { message_id: 9, chat: { id: CHAT }, from: { id: 7 }, text: PALLET_REQUEST } });
    const [approve, , reject] = buttons().map((b) => b.callback_data) as [string, string, string];
    expect((await post(press(reject), "wrong")).status).toBe(401);
    // Another chat cannot decide on this chat's conversation.
    await post({
      ...press(approve),
      callback_query: {
        ...press(approve).callback_query,
        message: { message_id: 1, chat: { id: 999 } },
      },
    });
    expect(lastMessage()).toMatchObject({ chat_id: 999, text: "Ezt a beszélgetést nem találom." });
    expect((await app.assistant.view("telegram-4242-9")).kind).toBe("review");

    await post(press(reject));
    expect(lastMessage().text).toBe("A vázlatot elutasította. A beszélgetés lezárult.");
    expect((await app.assistant.state("telegram-4242-9")).status).toBe("rejected");
  });

  it("splits long drafts under Telegram's 4096-character limit", () => {
    const parts = splitForTelegram(`${"a".repeat(3000)}\n\n${"b".repeat(3000)}`);
    expect(parts.map((p) => p.length)).toEqual([3000, 3000]);
    expect(splitForTelegram("x".repeat(9000)).every((p) => p.length <= 4096)).toBe(true);
  });
});
