/**
 * Unverified development mode (`TWI_ALLOW_UNVERIFIED_WEBHOOKS=i-understand-anyone-can-call-these`),
 * through the door: activities are not verified, but a card still acts only on the conversation of
 * the activity that carries it, and replies go only to an allow-listed service URL.
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
  teamsActivity,
} from "../test/webhook-door.js";

const dataDir = mkdtempSync(join(tmpdir(), "twi-door-dev-"));
let attacker: RecordingServer;
let bf: LocalBotFramework;
let door: DoorServer;

beforeAll(async () => {
  attacker = await startRecordingServer();
  bf = await startLocalBotFramework();
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "door-test-secret-0123456789");
  for (const name of ["TEAMS_APP_ID", "TEAMS_APP_PASSWORD", "TEAMS_VERIFY_REQUESTS", "TEAMS_API_BASE_URL"]) {
    vi.stubEnv(name, "");
  }
  vi.stubEnv("TWI_ALLOW_UNVERIFIED_WEBHOOKS", "i-understand-anyone-can-call-these");
  vi.stubEnv("TEAMS_SERVICE_URL_HOSTS", new URL(bf.server.url).host);
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  await bf?.server.close();
  await attacker?.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("twi-author Teams webhook in unverified development mode", () => {
  it("a card naming another conversation's thread is 403 and changes nothing; the sender's own card works", async () => {
    // The victim's conversation, started in Teams conversation a:victim.
    const victim = { id: "a:victim", tenantId: "tenant-acme" };
    expect(
      (
        await door.post(
          "/apps/twi-author/teams/messages",
          teamsActivity("v-1", { serviceUrl: bf.server.url, conversation: victim, text: PALLET_REQUEST }),
        )
      ).status,
    ).toBe(200);
    const victimThread = lastCard(bf, "a:victim").thread;
    const before = await door.thread(victimThread);
    expect(before.next).toEqual(["review"]);
    const callsBefore = bf.connectorCalls();

    // The attacker, in conversation a:mallory, submits the victim's card — replies to their own server,
    // then to the allow-listed one.
    for (const serviceUrl of [attacker.url, bf.server.url]) {
      const res = await door.post(
        "/apps/twi-author/teams/messages",
        teamsActivity("m-1", {
          serviceUrl,
          conversation: { id: "a:mallory", tenantId: "tenant-acme" },
          from: { id: "29:mallory", aadObjectId: "aad-mallory" },
          value: { twi: "decision", conversationId: victimThread, action: "approved" },
        }),
      );
      expect(res.status).toBe(403);
    }
    expect(await door.thread(victimThread)).toEqual(before);
    expect(bf.connectorCalls()).toBe(callsBefore);
    expect(attacker.requests).toEqual([]);

    // The attacker's own conversation works — replies go to the allow-listed service URL only.
    const mallory = { id: "a:mallory", tenantId: "tenant-acme" };
    await door.post(
      "/apps/twi-author/teams/messages",
      teamsActivity("m-2", { serviceUrl: bf.server.url, conversation: mallory, text: PALLET_REQUEST }),
    );
    const own = lastCard(bf, "a:mallory");
    expect(own.thread).not.toBe(victimThread);
    const approve = await door.post(
      "/apps/twi-author/teams/messages",
      teamsActivity("m-3", {
        serviceUrl: bf.server.url,
        conversation: mallory,
        value: { ...own.card.actions[0]?.data },
      }),
    );
    expect(approve.status).toBe(200);
    expect(lastCard(bf, "a:mallory").card.actions.map((a) => a.data.action)).toEqual(["final_approved"]);
    expect((await door.thread(own.thread)).next).toEqual(["approve"]);
    expect(await door.thread(victimThread)).toEqual(before);
  });

  it("an activity whose serviceUrl is not allow-listed is 403: nothing is started and nothing is sent there", async () => {
    const res = await door.post(
      "/apps/twi-author/teams/messages",
      teamsActivity("m-9", {
        serviceUrl: attacker.url,
        conversation: { id: "a:mallory-2", tenantId: "tenant-acme" },
        text: PALLET_REQUEST,
      }),
    );
    expect(res.status).toBe(403);
    expect(attacker.requests).toEqual([]);
  });

  it("the server reports the webhook as unverified", () => {
    const teams = door.server.unauthenticatedRoutes.find((r) => r.path === "/apps/twi-author/teams/messages");
    expect(teams).toMatchObject({ method: "POST", check: "unverified" });
  });
});
