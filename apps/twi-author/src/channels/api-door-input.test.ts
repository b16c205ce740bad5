/**
 * Issue 22, twi-author finding 7, through the Agent Server API and the app's routes: typed input
 * fields of the wrong value (`channel: "whatsapp"`, `revision_count: "abc"`) stop the conversation
 * before anything is generated, with an error naming the field; `GET /apps/twi-author/` with its
 * trailing slash is the route list, as without it.
 */
import { describe, expect, it } from "vitest";
import { apiDoor } from "../test/api-door.js";
import { PALLET_REQUEST } from "../test/test-app.js";

const t = apiDoor("twi-api-input-");
const api = (path: string, body?: unknown) => t.api(path, body);

describe("typed input fields are checked", () => {
  it.each([
    ["channel", { channel: "whatsapp" }, 'Input "channel" must be one of msteams, telegram, cli, got "whatsapp".'],
    [
      "revision_count",
      { revision_count: "abc" },
      'Input "revision_count" must be a whole number, 0 or more, got "abc".',
    ],
  ])("%s: refused with the field named; no draft is written", async (_field, bad, message) => {
    const threadId = String((await api("/threads", {})).json.thread_id);
    const res = await api(`/threads/${threadId}/runs/wait`, {
      assistant_id: "twi-author",
      input: { user_id: "u", tenant_id: "acme", channel: "cli", message: PALLET_REQUEST, ...bad },
    });
    // refused when the request is accepted: a 400 naming the field, and no run is queued
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: "INVALID_ARGUMENT", message });
    expect((await api(`/threads/${threadId}/runs`)).json).toEqual([]);
    const state = await api(`/threads/${threadId}/state`);
    expect((state.json.values as { draft?: unknown }).draft ?? null).toBeNull();
  });
});

describe("the app's index", () => {
  it("GET /apps/twi-author/ (trailing slash) answers as GET /apps/twi-author; an unknown path stays 404", async () => {
    const plain = await api("/apps/twi-author");
    const slash = await api("/apps/twi-author/");
    expect(plain.status).toBe(200);
    expect(slash).toEqual(plain);
    expect((await api("/apps/twi-author/nope")).status).toBe(404);
  });
});
