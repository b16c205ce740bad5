/**
 * Issue 18, through the door: a conversation started from Telegram (secret set) or Teams (verified)
 * is a thread of the server — `GET /threads/{id}`, `/threads/search` by `graph_id`, its runs — and a
 * decision answers the pause its card or button was shown for, once: a card pressed twice, or an old
 * card pressed after the conversation moved on, changes nothing and publishes nothing twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RecordingServer, startRecordingServer } from "../test/recording-server.js";
import { PALLET_REQUEST } from "../test/test-app.js";
import {
  type DoorServer,
  type LocalBotFramework,
  lastCard,
  startDoorServer,
  startLocalBotFramework,
  stubVerifiedTeams,
  teamsActivity,
} from "../test/webhook-door.js";

const dataDir = mkdtempSync(join(tmpdir(), "twi-door-threads-"));
const TOKEN = "4242:door-token";
const SECRET = "door-hook-secret";
let telegram: RecordingServer;
let bf: LocalBotFramework;
let door: DoorServer;

beforeAll(async () => {
  let messageId = 500;
  telegram = await startRecordingServer((req) =>
    req.path.endsWith("/sendMessage")
      ? { json: { ok: true, result: { message_id: ++messageId } } }
      : { json: { ok: true, result: true } },
  );
  bf = await startLocalBotFramework();
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "door-test-secret-0123456789");
  vi.stubEnv("TELEGRAM_BOT_TOKEN", TOKEN);
  vi.stubEnv("TELEGRAM_API_BASE_URL", telegram.url);
  vi.stubEnv("TELEGRAM_WEBHOOK_SECRET", SECRET);
  stubVerifiedTeams(bf);
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  await bf?.server.close();
  await telegram?.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

const teams = (activity: unknown) =>
  door.post("/apps/twi-author/teams/messages", activity, { authorization: `Bearer ${bf.token()}` });
const tg = (update: Record<string, unknown>) =>
  door.post("/apps/twi-author/telegram/webhook", update, { "x-telegram-bot-api-secret-token": SECRET });

/** A thread as the API answers it (the fields the tests read). */
type ThreadJson = { thread_id: string; status: string; metadata: { graph_id?: string }; values: { status?: string } };

async function api(path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${door.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

/** The thread as the Agent Server API shows it: record, search hit, runs. */
async function seenByApi(threadId: string) {
  const thread = await api(`/threads/${threadId}`);
  const search = await api("/threads/search", { metadata: { graph_id: "twi-author" }, limit: 100 });
  const runs = await api(`/threads/${threadId}/runs`);
  return {
    status: thread.status,
    thread: thread.json as ThreadJson,
    found: (search.json as Array<{ thread_id: string }>).some((t) => t.thread_id === threadId),
    runs: runs.json as Array<{ run_id: string; status: string }>,
  };
}

function telegramSent(): Array<{ text: string; buttons: string[] }> {
  return telegram.requests
    .filter((r) => r.path === `/bot${TOKEN}/sendMessage`)
    .map((r) => {
      const body = r.body as {
        text: string;
        reply_markup?: { inline_keyboard?: Array<Array<{ callback_data: string }>> };
      };
      return { text: body.text, buttons: body.reply_markup?.inline_keyboard?.[0]?.map((b) => b.callback_data) ?? [] };
    });
}

function press(data: string, id: string) {
  return {
    update_id: Number(id.replace(/\D/g, "")) || 1,
    callback_query: { id, from: { id: 7 }, message: { message_id: 501, chat: { id: 4242 } }, data },
  };
}

describe("a conversation from a webhook is a thread of the server", () => {
  it("Telegram: GET /threads/{id} is 200 with graph_id twi-author, /threads/search finds it, its runs are listed", async () => {
    const res = await tg({
      update_id: 1,
      message: { message_id: 5, chat: { id: 4242 }, from: { id: 7 }, text: PALLET_REQUEST },
    });
    expect(res.status).toBe(200);
    expect((await door.thread("telegram-4242-5")).next).toEqual(["review"]);

    const seen = await seenByApi("telegram-4242-5");
    expect(seen.status).toBe(200);
    expect(seen.thread).toMatchObject({ thread_id: "telegram-4242-5", status: "interrupted" });
    expect(seen.thread.metadata.graph_id).toBe("twi-author");
    expect(seen.found).toBe(true);
    expect(seen.runs.map((r) => r.status)).toEqual(["success"]); // paused at the review: a success

    // The same approve button pressed twice: the first applies, the second changes nothing.
    const approve = telegramSent().at(-1)?.buttons[0] ?? "";
    await tg(press(approve, "cb-2"));
    expect(telegramSent().at(-1)?.buttons).toEqual([expect.stringMatching(/^twi:f:/)]);
    await tg(press(approve, "cb-3"));
    expect(telegramSent().at(-1)?.text).toBe(
      "Erről a lépésről már döntöttek; a beszélgetés a következő lépésnél tart.",
    );
    expect((await door.thread("telegram-4242-5")).next).toEqual(["approve"]);
    expect((await seenByApi("telegram-4242-5")).runs).toHaveLength(2);
  });

  it("Teams: GET /threads/{id} is 200 with graph_id twi-author, /threads/search finds it, its runs are listed", async () => {
    const conversation = { id: "a:threads-1", tenantId: "tenant-acme" };
    const res = await teams(teamsActivity("t-1", { serviceUrl: bf.server.url, conversation, text: PALLET_REQUEST }));
    expect(res.status).toBe(200);
    const { thread } = lastCard(bf, conversation.id);
    expect((await door.thread(thread)).next).toEqual(["review"]);

    const seen = await seenByApi(thread);
    expect(seen.status).toBe(200);
    expect(seen.thread).toMatchObject({ thread_id: thread, status: "interrupted" });
    expect(seen.thread.metadata.graph_id).toBe("twi-author");
    expect(seen.found).toBe(true);
    expect(seen.runs.map((r) => r.status)).toEqual(["success"]); // paused at the review: a success
  });
});

describe("a message delivered twice", () => {
  it("at once, starts one run on one thread (the start's run id comes from the thread id)", async () => {
    const update = {
      update_id: 30,
      message: { message_id: 12, chat: { id: 4242 }, from: { id: 7 }, text: PALLET_REQUEST },
    };
    const [a, b] = await Promise.all([tg(update), tg(update)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const seen = await seenByApi("telegram-4242-12");
    expect(seen.runs.map((r) => r.status)).toEqual(["success"]); // paused at the review: a success
    expect((await door.thread("telegram-4242-12")).next).toEqual(["review"]);
  });
});

describe("a decision answers the pause its card was shown for, once", () => {
  it("Teams: an old review card after a revision is refused; the final approval card pressed twice publishes once", async () => {
    const conversation = { id: "a:stale-1", tenantId: "tenant-acme" };
    await teams(teamsActivity("s-1", { serviceUrl: bf.server.url, conversation, text: PALLET_REQUEST }));
    const first = lastCard(bf, conversation.id);
    const thread = first.thread;

    // A revision through the first card: the conversation is at a new review pause.
    await teams(
      teamsActivity("s-2", {
        serviceUrl: bf.server.url,
        conversation,
        value: { ...first.card.actions[1]?.data, feedback: "Biztonság: Sisak viselése kötelező" },
      }),
    );
    const second = lastCard(bf, conversation.id);
    const atSecondReview = await door.thread(thread);
    expect(atSecondReview.next).toEqual(["review"]);
    const runsBefore = (await seenByApi(thread)).runs.length;

    // The first card's "approve", pressed now, was for a pause that is gone: refused, nothing changes.
    await teams(
      teamsActivity("s-3", { serviceUrl: bf.server.url, conversation, value: { ...first.card.actions[0]?.data } }),
    );
    expect(bf.sent(conversation.id).at(-1)?.text).toMatch(/^Ez a kártya egy korábbi lépéshez tartozik/);
    expect(await door.thread(thread)).toEqual(atSecondReview);
    expect((await seenByApi(thread)).runs).toHaveLength(runsBefore);

    // The current card works; its final approval card pressed twice at once publishes once.
    await teams(
      teamsActivity("s-4", { serviceUrl: bf.server.url, conversation, value: { ...second.card.actions[0]?.data } }),
    );
    const final = lastCard(bf, conversation.id);
    expect(final.card.actions.map((a) => a.data.action)).toEqual(["final_approved"]);
    await Promise.all([
      teams(
        teamsActivity("s-5", { serviceUrl: bf.server.url, conversation, value: { ...final.card.actions[0]?.data } }),
      ),
      teams(
        teamsActivity("s-6", { serviceUrl: bf.server.url, conversation, value: { ...final.card.actions[0]?.data } }),
      ),
    ]);
    await teams(
      teamsActivity("s-7", { serviceUrl: bf.server.url, conversation, value: { ...final.card.actions[0]?.data } }),
    );
    const texts = bf.sent(conversation.id).map((a) => a.text ?? "");
    expect(texts.filter((t) => t.startsWith("✅ A munkautasítás jóváhagyva"))).toHaveLength(1);
    expect(texts.at(-1)).toBe("Ez a beszélgetés már nem vár döntésre.");
    const end = await seenByApi(thread);
    expect(end.thread.status).toBe("idle");
    expect(end.thread.values.status).toBe("completed");
    // start, revision, approval (each paused: a success), final approval: the refused presses left no run
    expect(end.runs.map((r) => r.status)).toEqual(["success", "success", "success", "success"]);
  });
});

describe("one thread whatever the door", () => {
  it("a review answered over the Agent Server API applies there, and the Telegram button for that pause is then refused", async () => {
    await tg({ update_id: 20, message: { message_id: 8, chat: { id: 4242 }, from: { id: 7 }, text: PALLET_REQUEST } });
    const thread = "telegram-4242-8";
    const buttons = telegramSent().at(-1)?.buttons ?? [];
    expect((await door.thread(thread)).next).toEqual(["review"]);

    // New input over the API while the thread waits for its review: refused (the graph's reject
    // policy holds at its static breakpoints too), nothing written
    const stray = await api(`/threads/${thread}/runs/wait`, {
      assistant_id: "twi-author",
      input: { messages: [{ role: "user", content: "valami más" }] },
    });
    expect(stray.status).toBe(409);
    expect((stray.json as { error: string }).error).toBe("THREAD_PAUSED");
    expect((await door.thread(thread)).next).toEqual(["review"]);

    // The seed's resume over the API: the decision's state update, and on from the breakpoint.
    const answered = await api(`/threads/${thread}/runs/wait`, {
      assistant_id: "twi-author",
      command: { update: { status: "approved" } },
    });
    expect(answered.status).toBe(200);
    const atApproval = await door.thread(thread);
    expect(atApproval.next).toEqual(["approve"]);

    await tg(press(buttons[0] ?? "", "cb-21"));
    expect(telegramSent().at(-1)?.text).toBe(
      "Erről a lépésről már döntöttek; a beszélgetés a következő lépésnél tart.",
    );
    expect(await door.thread(thread)).toEqual(atApproval);
    expect((await seenByApi(thread)).runs.map((r) => r.status)).toEqual(["success", "success"]);
  });
});
