/**
 * Teams with verification on (a local OpenID/JWKS server and a key pair generated here), through the
 * door: a verified activity may act only on threads of its own conversation and tenant, and replies go
 * only to the verified, allow-listed service URL.
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

const dataDir = mkdtempSync(join(tmpdir(), "twi-door-verified-"));
let attacker: RecordingServer;
let bf: LocalBotFramework;
let door: DoorServer;

beforeAll(async () => {
  attacker = await startRecordingServer();
  bf = await startLocalBotFramework();
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "door-test-secret-0123456789");
  stubVerifiedTeams(bf);
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  await bf?.server.close();
  await attacker?.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

const VICTIM = { id: "a:victim", tenantId: "tenant-acme" };
const teams = (activity: unknown, token = bf.token()) =>
  door.post("/apps/twi-author/teams/messages", activity, { authorization: `Bearer ${token}` });

describe("twi-author Teams webhook with Bot Framework verification", () => {
  it("a verified card naming another conversation's (or tenant's) thread is 403; that thread stays paused, no checkpoint added", async () => {
    expect(
      (await teams(teamsActivity("v-1", { serviceUrl: bf.server.url, conversation: VICTIM, text: PALLET_REQUEST })))
        .status,
    ).toBe(200);
    const { card, thread } = lastCard(bf, "a:victim");
    const before = await door.thread(thread);
    expect(before.next).toEqual(["review"]);
    const callsBefore = bf.connectorCalls();

    const forged = [
      // Another conversation of the same tenant, with a valid token, submits the victim's card.
      { id: "m-1", conversation: { id: "a:mallory", tenantId: "tenant-acme" } },
      // The victim's conversation id under another tenant.
      { id: "m-2", conversation: { id: "a:victim", tenantId: "tenant-evil" } },
      // The tenant in channelData disagrees with the conversation's.
      { id: "m-3", conversation: VICTIM, channelData: { tenant: { id: "tenant-evil" } } },
    ];
    for (const f of forged) {
      const res = await teams(
        teamsActivity(f.id, {
          serviceUrl: bf.server.url,
          conversation: f.conversation,
          ...(f.channelData ? { channelData: f.channelData } : {}),
          from: { id: "29:mallory", aadObjectId: "aad-mallory" },
          value: { ...card.actions[0]?.data },
        }),
      );
      expect(res.status, f.id).toBe(403);
    }
    expect(await door.thread(thread)).toEqual(before);
    expect(bf.connectorCalls()).toBe(callsBefore);

    // The victim's own press goes through.
    const own = await teams(
      teamsActivity("v-2", { serviceUrl: bf.server.url, conversation: VICTIM, value: { ...card.actions[0]?.data } }),
    );
    expect(own.status).toBe(200);
    expect((await door.thread(thread)).next).toEqual(["approve"]);
    expect(lastCard(bf, "a:victim").card.actions.map((a) => a.data.action)).toEqual(["final_approved"]);
  });

  it("no reply ever goes to an attacker's serviceUrl, even under a valid signature", async () => {
    // A token without a serviceurl claim, and one that names the attacker's server.
    const missing = await teams(
      teamsActivity("x-1", { serviceUrl: attacker.url, conversation: { id: "a:x1" }, text: PALLET_REQUEST }),
      bf.token({ serviceurl: undefined }),
    );
    expect(missing.status).toBe(401);
    const named = await teams(
      teamsActivity("x-2", { serviceUrl: attacker.url, conversation: { id: "a:x2" }, text: PALLET_REQUEST }),
      bf.token({ serviceurl: attacker.url }),
    );
    expect(named.status).toBe(403);
    // A token for the real service URL, on an activity that names the attacker's.
    const mismatch = await teams(
      teamsActivity("x-3", { serviceUrl: attacker.url, conversation: { id: "a:x3" }, text: PALLET_REQUEST }),
    );
    expect(mismatch.status).toBe(401);
    // No token at all.
    const unsigned = await door.post(
      "/apps/twi-author/teams/messages",
      teamsActivity("x-4", { serviceUrl: attacker.url, conversation: VICTIM, text: PALLET_REQUEST }),
    );
    expect(unsigned.status).toBe(401);
    expect(attacker.requests).toEqual([]);
  });

  it("the server reports the webhook as verified by the Bot Framework token", () => {
    const route = door.server.unauthenticatedRoutes.find((r) => r.path === "/apps/twi-author/teams/messages");
    expect(route).toMatchObject({ method: "POST", check: "verified" });
  });
});
