/**
 * Issue 22, twi-author finding 7, through the Agent Server API and the app's routes: typed input
 * fields of the wrong value (`channel: "whatsapp"`, `revision_count: "abc"`) stop the conversation
 * before anything is generated, with an error naming the field (issue 21: the state schema declares
 * them, so `updateState` is checked too and getSchemas shows them); `GET /apps/twi-author/` with its
 * trailing slash is the route list, as without it.
 */
import { describe, expect, it } from "vitest";
import { TWI_INPUT_KEYS } from "../state.js";
import { apiDoor } from "../test/api-door.js";
import { PALLET_REQUEST } from "../test/test-app.js";

const t = apiDoor("twi-api-input-");
const api = (path: string, body?: unknown) => t.api(path, body);

describe("typed input fields are checked", () => {
  const start = { user_id: "u", tenant_id: "acme", channel: "cli", message: PALLET_REQUEST };

  it.each([
    ["channel", { channel: "whatsapp" }, /state key "channel" to "whatsapp".*must be one of msteams, telegram, cli/],
    ["revision_count", { revision_count: "abc" }, /state key "revision_count" to "abc".*a whole number, 0 or more/],
    ["message", { message: "   " }, /state key "message" to " {3}".*must be the request as text/],
  ])("%s: refused with the field named; no draft is written", async (_field, bad, message) => {
    const threadId = String((await api("/threads", {})).json.thread_id);
    const res = await api(`/threads/${threadId}/runs/wait`, {
      assistant_id: "twi-author",
      input: { ...start, ...bad },
    });
    // refused by the channel's declared schema when the request is accepted: a 400 naming the field,
    // and no run is queued
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: "INVALID_STATE" });
    expect(res.json.message).toMatch(message);
    expect((await api(`/threads/${threadId}/runs`)).json).toEqual([]);
    const state = await api(`/threads/${threadId}/state`);
    expect((state.json.values as { draft?: unknown }).draft ?? null).toBeNull();
  });

  it("a run without a message is refused too (the graph's check of the whole state)", async () => {
    const threadId = String((await api("/threads", {})).json.thread_id);
    const { message: _left, ...noMessage } = start;
    const res = await api(`/threads/${threadId}/runs/wait`, { assistant_id: "twi-author", input: noMessage });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: "INVALID_STATE",
      message: 'Input "message" must be the request as text, got "".',
    });
  });

  it("a reviewer's updateState with revision_count 'abc' is a 400 and the state is unchanged", async () => {
    const threadId = String((await api("/threads", {})).json.thread_id);
    const paused = await api(`/threads/${threadId}/runs/wait`, { assistant_id: "twi-author", input: start });
    expect(paused.status).toBe(200);
    const before = await api(`/threads/${threadId}/state`);
    const res = await api(`/threads/${threadId}/state`, { values: { revision_count: "abc" } });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/"revision_count" to "abc"/);
    const after = await api(`/threads/${threadId}/state`);
    expect(after.json.checkpoint).toEqual(before.json.checkpoint);
    expect((after.json.values as { revision_count: unknown }).revision_count).toBe(0);
  });

  it("getSchemas shows the typed fields as JSON Schema", async () => {
    const res = await api("/assistants/twi-author/schemas");
    const input = res.json.input_schema as { properties: Record<string, Record<string, unknown>> };
    expect(input.properties.channel).toMatchObject({ enum: ["msteams", "telegram", "cli"], default: "cli" });
    expect(input.properties.revision_count).toMatchObject({ type: "integer", minimum: 0, default: 0 });
    expect(input.properties.user_id).toMatchObject({ type: "string" });
    // the draft, its status and the review's fields are the graph's own, not inputs (issue 37)
    expect(Object.keys(input.properties)).toEqual([...TWI_INPUT_KEYS]);
    const state = res.json.state_schema as { properties: Record<string, Record<string, unknown>> };
    expect(state.properties.status).toMatchObject({ enum: expect.arrayContaining(["approved", "rejected"]) });
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
