// Issue 33, findings 2 and 3, with the server's auth on and two inspectors: an inspector's settings are
// keyed on the user the server authenticated (ctx.user), so another user can neither read nor overwrite
// them — not with a forged `configurable.user_id`, not with an AG-UI thread id equal to her user id —
// and a thread's reports go with the thread: a later thread with the same id finds nothing of them.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { type ReceivedEvent, WsFrontend } from "./ag-ui-client.js";
import { servedInspectionApp } from "./served-app.js";

const ASK = "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854";
const ANSWER = "hoofdstraat 2, ja, nee";

const app = servedInspectionApp("inspection-identity-", {
  auth: {
    enabled: true,
    credentials: [
      { user: "alice", apiKey: "key-alice" },
      { user: "bob", apiKey: "key-bob" },
    ],
  },
});

const ws = (key: string, threadId?: string) => WsFrontend.connect(`${app.server.wsUrl}?api_key=${key}`, threadId);
const client = (key: string) => new Client({ apiUrl: app.server.url, apiKey: key });

async function post(path: string, key: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${app.server.url}${path}`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** The settings a user's frontend shows: the app's AG-UI state snapshot, read without running anything. */
async function settingsSeenBy(key: string, threadId: string): Promise<unknown> {
  const fe = await ws(key, threadId);
  try {
    const events = await fe.sendRaw(JSON.stringify({ threadId, runId: `sync-${Date.now()}`, messages: [], state: {} }));
    const snapshot = events.find((e: ReceivedEvent) => e.type === "STATE_SNAPSHOT") as
      | { snapshot: { user_settings?: unknown } }
      | undefined;
    return snapshot?.snapshot.user_settings;
  } finally {
    fe.close();
  }
}

const reportFiles = () => {
  const dir = join(app.dir, "data", "reports");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
};

describe("an inspector's settings are the authenticated user's", () => {
  it("bob can neither read nor overwrite alice's inspector name, whatever door and ids he uses", async () => {
    const alice = await ws("key-alice", "t-alice-settings");
    const saved = await alice.say("Mijn naam is Alice Jansen");
    expect(saved.texts.join(" ")).toContain("naam: Alice Jansen");
    alice.close();
    expect(await settingsSeenBy("key-alice", "t-alice-settings")).toEqual({ inspector_name: "Alice Jansen" });

    // the server's generic AG-UI, on a thread whose id is alice's user id: bob's own settings, not hers
    const generic = await post("/ag-ui/inspection-reporter", "key-bob", {
      threadId: "alice",
      runId: "r-bob-1",
      messages: [{ id: "b1", role: "user", content: "Mijn naam is Bob Bakker" }],
      tools: [],
      context: [],
    });
    expect(generic.status).toBe(200);
    expect(generic.text).toContain("Bob Bakker");
    expect(await settingsSeenBy("key-alice", "t-alice-settings")).toEqual({ inspector_name: "Alice Jansen" });
    // a forged user in the run's config, over the Agent Server API and over the app's AG-UI: refused
    await expect(
      client("key-bob").runs.wait(null, "inspection-reporter", {
        input: { messages: [{ role: "user", content: "Mijn naam is Mallory" }] },
        config: { configurable: { user_id: "alice" } },
      }),
    ).rejects.toThrow(/400/);
    const forged = await post("/runs/wait", "key-bob", {
      assistant_id: "inspection-reporter",
      input: { messages: [{ role: "user", content: "Mijn naam is Mallory" }] },
      config: { configurable: { user_id: "alice" } },
    });
    expect([forged.status, forged.text.includes("user_id")]).toEqual([400, true]);
    const appAgUi = await post("/apps/inspection-reporter/ag-ui", "key-bob", {
      threadId: "t-bob-forged",
      runId: "r-bob-2",
      messages: [{ id: "b2", role: "user", content: "Mijn naam is Mallory" }],
      forwardedProps: { configurable: { user_id: "alice" } },
    });
    expect([appAgUi.status, appAgUi.text.includes("user_id")]).toEqual([400, true]);

    // alice's name is still hers, and bob's report names bob
    expect(await settingsSeenBy("key-alice", "t-alice-settings")).toEqual({ inspector_name: "Alice Jansen" });
    const bob = await ws("key-bob", "t-bob-report");
    expect(JSON.stringify((await bob.say(ASK)).finished)).toContain("success");
    const report = (await bob.say(ANSWER)).texts.join("\n");
    bob.close();
    expect(report).toContain("- Inspecteur: Bob Bakker");
    expect(report).not.toContain("Alice");
  });
});

describe("a thread's reports go with the thread", () => {
  it("deleting alice's thread deletes its report; bob's thread with the same id later finds nothing of hers", async () => {
    const T = "t-shared-report";
    const before = new Set(reportFiles());
    const alice = await ws("key-alice", T);
    await alice.say(ASK);
    const done = (await alice.say(ANSWER)).texts.join("\n");
    alice.close();
    expect(done).toContain("Het inspectierapport is klaar");
    const made = reportFiles().filter((f) => !before.has(f));
    expect(made).toHaveLength(1);
    // bob may not read her thread through the app's route
    const peek = await fetch(`${app.server.url}/apps/inspection-reporter/threads/${T}`, {
      headers: { "x-api-key": "key-bob" },
    });
    expect(peek.status).toBe(404);

    await client("key-alice").threads.delete(T);
    expect(reportFiles()).not.toContain(made[0]);
    await client("key-bob").threads.create({ threadId: T });
    const after = await fetch(`${app.server.url}/apps/inspection-reporter/threads/${T}`, {
      headers: { "x-api-key": "key-bob" },
    });
    const text = await after.text();
    expect(text).not.toContain("Bella Rosa");
    expect(text).not.toContain("Hoofdstraat");
  });
});
