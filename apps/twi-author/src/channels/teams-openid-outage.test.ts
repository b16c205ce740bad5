/**
 * While the Bot Framework's OpenID metadata cannot be fetched, tokens (forged or not) do not make the
 * server fetch it once per request: concurrent requests share one fetch, and after a failure none is
 * tried again for 5 s, then 10 s, … up to 5 minutes. Through the door, then with an injected clock to
 * show the wait doubling and the recovery.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RecordingServer, startRecordingServer } from "../test/recording-server.js";
import {
  APP_ID,
  type DoorServer,
  type LocalBotFramework,
  startDoorServer,
  startLocalBotFramework,
  stubVerifiedTeams,
  teamsActivity,
} from "../test/webhook-door.js";
import { BotFrameworkAuth } from "./teams/bot-framework-auth.js";

const dataDir = mkdtempSync(join(tmpdir(), "twi-openid-outage-"));
let bf: LocalBotFramework;
let metadata: RecordingServer;
let metadataUp = false;
let door: DoorServer;

beforeAll(async () => {
  bf = await startLocalBotFramework();
  metadata = await startRecordingServer(() =>
    metadataUp ? { json: { jwks_uri: `${bf.server.url}/keys` } } : { status: 503, json: { error: "down" } },
  );
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "door-test-secret-0123456789");
  stubVerifiedTeams(bf);
  vi.stubEnv("TEAMS_OPENID_METADATA_URL", `${metadata.url}/openid`);
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  await bf?.server.close();
  await metadata?.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

const metadataFetches = () => metadata.requests.filter((r) => r.path === "/openid").length;

describe("Teams tokens while the OpenID metadata is down", () => {
  it("30 requests with tokens, 10 at a time, make one fetch of the metadata, each refused 401", async () => {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          door.post(
            "/apps/twi-author/teams/messages",
            teamsActivity(`forged-${round}-${i}`, { serviceUrl: bf.server.url, text: "hi" }),
            { authorization: `Bearer ${bf.token({ aud: i % 2 ? APP_ID : "someone-else" })}` },
          ),
        ),
      );
      for (const a of answers) {
        expect(a.status).toBe(401);
        expect(JSON.stringify(a.json)).toMatch(/cannot fetch the signing keys/);
      }
    }
    expect(metadataFetches()).toBe(1);
  });

  it("tries again after 5 s, then 10 s, … and verifies once the metadata is back", async () => {
    let now = 1_000_000;
    const auth = new BotFrameworkAuth({ appId: APP_ID, openIdMetadataUrl: `${metadata.url}/openid`, now: () => now });
    const before = metadataFetches();
    const verify = () => auth.verify(`Bearer ${bf.token()}`, bf.server.url);
    metadataUp = false;
    const first = await Promise.all(Array.from({ length: 20 }, verify));
    expect(first.every((r) => !r.ok)).toBe(true);
    expect(metadataFetches() - before).toBe(1);
    now += 4;
    expect(await verify()).toMatchObject({ ok: false, reason: expect.stringMatching(/next try in 1 s/) });
    expect(metadataFetches() - before).toBe(1);
    now += 2; // 6 s after the failure: a second try, which fails: the next waits 10 s
    await verify();
    expect(metadataFetches() - before).toBe(2);
    now += 9;
    await verify();
    expect(metadataFetches() - before).toBe(2);
    metadataUp = true;
    now += 2;
    // the token's own times are checked against the same clock: sign one for it
    const valid = await auth.verify(`Bearer ${bf.token({ exp: now + 600, nbf: now - 10 })}`, bf.server.url);
    expect(valid).toEqual({ ok: true });
    expect(metadataFetches() - before).toBe(3);
  });
});
