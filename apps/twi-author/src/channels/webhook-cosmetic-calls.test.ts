/**
 * Issue 22, twi-author finding 5, through the webhooks: a cosmetic outgoing call that fails — the
 * typing indicator (`TELEGRAM_BOT_TOKEN is not set`, the Bot Connector answering 404) — no longer
 * drops the message the webhook already answered 200 for: the conversation is started, and in Teams
 * the review card still arrives.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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

const dataDir = mkdtempSync(join(tmpdir(), "twi-cosmetic-"));
const SECRET = "cosmetic-secret";
let bf: LocalBotFramework;
let door: DoorServer;

beforeAll(async () => {
  bf = await startLocalBotFramework({ refuseTyping: true });
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "cosmetic-secret-0123456789");
  vi.stubEnv("TELEGRAM_WEBHOOK_SECRET", SECRET);
  stubVerifiedTeams(bf);
  for (const name of ["TELEGRAM_BOT_TOKEN", "TWI_AUDIT_DATABASE_URL"]) vi.stubEnv(name, "");
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  await bf?.server.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a failing cosmetic call does not drop the message", () => {
  it("Telegram without TELEGRAM_BOT_TOKEN: the typing indicator fails, the conversation is started anyway", async () => {
    const res = await door.post(
      "/apps/twi-author/telegram/webhook",
      { update_id: 1, message: { message_id: 3, chat: { id: 5151 }, from: { id: 7 }, text: PALLET_REQUEST } },
      { "x-telegram-bot-api-secret-token": SECRET },
    );
    expect(res.status).toBe(200);
    expect((await door.thread("telegram-5151-3")).next).toEqual(["review"]);
  });

  it("Teams whose Bot Connector answers 404 to the typing indicator: the conversation starts and the review card arrives", async () => {
    const conversation = { id: "a:cosmetic-1", tenantId: "tenant-acme" };
    const res = await door.post(
      "/apps/twi-author/teams/messages",
      teamsActivity("c-1", { serviceUrl: bf.server.url, conversation, text: PALLET_REQUEST }),
      { authorization: `Bearer ${bf.token()}` },
    );
    expect(res.status).toBe(200);
    const { thread, card } = lastCard(bf, conversation.id);
    expect(card.actions.map((a) => a.data.action)).toEqual(["approved", "revision_requested", "rejected"]);
    expect((await door.thread(thread)).next).toEqual(["review"]);
  });
});
