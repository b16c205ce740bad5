/**
 * Issue 22, twi-author finding 6 (the last part): the seed's status "error" is written. Over the Agent
 * Server API, a conversation whose model call fails shows `status: "error"` in its state (and the
 * thread is `error`); continuing it — as the docs allow for a failed run — runs the failed step again
 * (the intent call that had succeeded is not repeated) and the step's own status replaces "error".
 * A refused answer is not an error: the conversation's status stays as it was.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "@trellis/models/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AgentState } from "../state.js";
import { PALLET_REQUEST } from "../test/test-app.js";
import { type DoorServer, startDoorServer } from "../test/webhook-door.js";

const DRAFT =
  "1. CÍM\nRaklap fóliázása\n\n2. CÉL\nStabil rakat\n\n3. SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK\n- fólia\n\n4. BIZTONSÁGI ELŐÍRÁSOK\n- kesztyű\n\n5. LÉPÉSEK\n1. lépés: Tekerje körbe\n   Kulcspontok:\n   - feszesen\n   Indoklás: stabilitás\n\n6. MINŐSÉGI ELLENŐRZÉS\n- nem mozdul";

const dataDir = mkdtempSync(join(tmpdir(), "twi-error-status-"));
let model: FakeOpenAiServer;
let door: DoorServer;

beforeAll(async () => {
  model = await startFakeOpenAiServer();
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "twi-error-status-secret-0123456789");
  vi.stubEnv("TWI_MODEL_PROVIDER", "mistral");
  vi.stubEnv("TWI_MODEL", "mistral-large-latest");
  vi.stubEnv("TWI_MODEL_BASE_URL", model.url);
  vi.stubEnv("TWI_MODEL_MAX_RETRIES", "0");
  vi.stubEnv("MISTRAL_API_KEY", "test-key");
  for (const name of ["TWI_AUDIT_DATABASE_URL", "TWI_PUBLIC_BASE_URL", "TRELLIS_MODEL_PROVIDER"]) vi.stubEnv(name, "");
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  await model?.close();
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

describe('status "error"', () => {
  it("a failed model call leaves status error; a continue that succeeds replaces it", async () => {
    const threadId = String((await api("/threads", {})).json.thread_id);
    model.enqueue(" generate_twi", { status: 503 });
    const failed = await api(`/threads/${threadId}/runs/wait`, {
      assistant_id: "twi-author",
      input: { user_id: "u1", tenant_id: "acme", channel: "cli", message: PALLET_REQUEST },
    });
    expect(failed.json.__error__).toBeDefined();
    const state = await api(`/threads/${threadId}/state`);
    expect((state.json.values as AgentState).status).toBe("error");
    expect(state.json.next).toEqual(["generate"]);
    expect((await api(`/threads/${threadId}`)).json.status).toBe("error");

    // continue the failed run: only the failed call is made again
    model.enqueue(DRAFT);
    const before = model.requests.length;
    const continued = await api(`/threads/${threadId}/runs/wait`, { assistant_id: "twi-author", input: null });
    expect(continued.status).toBe(200);
    expect(model.requests.length - before).toBe(1);
    const after = await api(`/threads/${threadId}/state`);
    expect((after.json.values as AgentState).status).toBe("review_needed");
    expect(String((after.json.values as AgentState).draft)).toContain("Raklap fóliázása");
    expect(after.json.next).toEqual(["review"]);
  });

  it("a refused answer is not an error: the status stays as it was", async () => {
    const threadId = String((await api("/threads", {})).json.thread_id);
    model.enqueue(" generate_twi", DRAFT);
    await api(`/threads/${threadId}/runs/wait`, {
      assistant_id: "twi-author",
      input: { user_id: "u1", tenant_id: "acme", channel: "cli", message: PALLET_REQUEST },
    });
    // a revision request without feedback is refused by the review node (FEEDBACK_REQUIRED)
    const refused = await api(`/threads/${threadId}/runs/wait`, {
      assistant_id: "twi-author",
      command: { update: { status: "revision_requested", revision_feedback: " " } },
    });
    expect((refused.json.__error__ as { message: string }).message).toMatch(/needs feedback/);
    const state = await api(`/threads/${threadId}/state`);
    expect((state.json.values as AgentState).status).toBe("revision_requested");
  });
});
