/**
 * Issue 26, Teams through the door with Bot Framework verification on: a token with a forged
 * signature is a `webhook-refused` line (401, `bad-token`, how it failed), a verified card naming
 * another conversation's thread a `not-admitted` one (403) with that thread, a verified message a
 * `webhook-received` line with the thread it starts — never the token or the text.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { captureProcessOutput, type Written } from "../test/process-output.js";
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

const dataDir = mkdtempSync(join(tmpdir(), "twi-webhook-log-teams-"));
let bf: LocalBotFramework;
let door: DoorServer;

beforeAll(async () => {
  bf = await startLocalBotFramework();
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "door-test-secret-0123456789");
  stubVerifiedTeams(bf);
  vi.stubEnv("TRELLIS_LOG_FORMAT", "json");
  vi.stubEnv("TRELLIS_LOG_LEVEL", "info");
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  await bf?.server.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

let written: Written[];
let output: ReturnType<typeof captureProcessOutput>;
beforeEach(() => {
  output = captureProcessOutput();
  written = output.written;
});
afterEach(() => output.restore());

const webhookLines = () =>
  written
    .flatMap(({ text }) => text.split("\n"))
    .filter((line) => line.startsWith("{") && line.includes('"event":"webhook-'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const VICTIM = { id: "a:victim", tenantId: "tenant-acme" };
const teams = (activity: unknown, token: string) =>
  door.post("/apps/twi-author/teams/messages", activity, { authorization: `Bearer ${token}` });

describe("the Teams webhook's log lines (issue 26)", () => {
  it("a forged signature is bad-token, a card of another conversation not-admitted with its thread, a message received with the thread it starts", async () => {
    const good = bf.token();
    const forgedToken = `${good.slice(0, good.lastIndexOf("."))}.${"A".repeat(40)}`;
    const start = teamsActivity("v-1", { serviceUrl: bf.server.url, conversation: VICTIM, text: PALLET_REQUEST });
    expect((await teams(start, forgedToken)).status).toBe(401);
    expect((await teams(start, good)).status).toBe(200);
    const { card, thread } = lastCard(bf, "a:victim");
    const mallory = teamsActivity("m-1", {
      serviceUrl: bf.server.url,
      conversation: { id: "a:mallory", tenantId: "tenant-acme" },
      value: { ...card.actions[0]?.data },
    });
    expect((await teams(mallory, bf.token())).status).toBe(403);

    const lines = webhookLines();
    expect(lines.map((e) => [e.event, e.status, e.reason, e.threadId])).toEqual([
      ["webhook-refused", 401, "bad-token", undefined],
      ["webhook-received", undefined, undefined, thread],
      ["webhook-refused", 403, "not-admitted", thread],
    ]);
    expect(lines[0]).toMatchObject({ app: "twi-author", channel: "teams", level: "warn", detail: "bad signature" });
    expect(lines[2]?.detail).toBe("this card belongs to another Teams conversation");
    const text = JSON.stringify(lines);
    for (const secret of [good, forgedToken.slice(-40), PALLET_REQUEST, "app-password"]) {
      expect(text).not.toContain(secret);
    }
  });
});
