import { messageText, ScriptedChatModel } from "@trellis/models";
import { afterEach, describe, expect, it } from "vitest";
import { createOfflineTwiModel, OFFLINE_MODEL_ID } from "./offline/offline-model.js";
import { GENERATE_PROMPT_ID, INTENT_PROMPT_ID } from "./prompts.js";
import { AI_LABEL, initialState } from "./state.js";
import { conversation, createTestApp, PALLET_REQUEST, type TestApp } from "./test/test-app.js";
import { parseTwiText } from "./twi-document.js";

const apps: TestApp[] = [];
function app(options: Parameters<typeof createTestApp>[0] = {}): TestApp {
  const created = createTestApp(options);
  apps.push(created);
  return created;
}
afterEach(async () => {
  for (const a of apps.splice(0)) await a.dispose();
});

describe("intent classification (seed: each category)", () => {
  it.each([
    ["Írj TWI munkautasítást a raklap fóliázásáról.", "generate_twi", ["intent", "process_input"]],
    [
      "Write a TWI job instruction for tightening bolts with a torque wrench",
      "generate_twi",
      ["intent", "process_input"],
    ],
    [
      "Módosítsd a meglévő TWI munkautasítást: Biztonság: védőszemüveg kötelező",
      "edit_twi",
      ["intent", "process_input"],
    ],
    ["Mi a különbség a fő lépés és a kulcspont között?", "question", ["intent"]],
    ["Szia, jó reggelt!", "unknown", ["intent", "clarify"]],
  ])("%s → %s", async (message, intent, path) => {
    const { graph } = app();
    const writes: string[] = [];
    for await (const chunk of graph.stream(initialState(conversation("c", message)), {
      threadId: "c",
      streamMode: "updates",
    })) {
      writes.push(...Object.keys(chunk as Record<string, unknown>));
    }
    const state = (await graph.getState({ threadId: "c" })).values;
    expect(state.intent).toBe(intent);
    expect(writes.slice(0, path.length)).toEqual(path);
    if (intent === "unknown") {
      expect((await graph.getState({ threadId: "c" })).next).toEqual([]);
      expect(state.draft).toBeNull();
    } else {
      expect((await graph.getState({ threadId: "c" })).next).toEqual(["review"]);
    }
  });

  it("calls the model as the seed fixes it: intent 0.1 / 20 tokens, generate 0.3 / 4000 tokens", async () => {
    const model = createOfflineTwiModel();
    const { assistant } = app({ model });
    await assistant.start(conversation("c1", PALLET_REQUEST));
    expect(model.calls.map((c) => [c.rule, c.temperature, c.maxTokens])).toEqual([
      ["intent", 0.1, 20],
      ["generate", 0.3, 4000],
    ]);
    expect(messageText(model.calls[0]?.messages[0]).startsWith(INTENT_PROMPT_ID)).toBe(true);
    expect(messageText(model.calls[1]?.messages[0]).startsWith(GENERATE_PROMPT_ID)).toBe(true);
  });

  it("reads a real model's wordier intent reply, and falls back to unknown", async () => {
    const model = new ScriptedChatModel([" Question.\n", "Ez egy válasz.", "no idea"]);
    const { assistant } = app({ model });
    await assistant.start(conversation("q", "Hogyan kell?"));
    expect((await assistant.state("q")).intent).toBe("question");
    const view = await assistant.start(conversation("u", "???"));
    expect(view.kind).toBe("clarify");
  });
});

describe("draft (seed: EU AI Act label, six sections)", () => {
  it("starts with the exact label and holds the six sections, steps with key points and rationale", async () => {
    const { assistant } = app();
    const view = await assistant.start(conversation("c1", PALLET_REQUEST));
    expect(view.kind).toBe("review");
    const state = await assistant.state("c1");
    expect(state.draft?.startsWith(`${AI_LABEL}\n`)).toBe(true);
    expect(state.draft?.split(AI_LABEL)).toHaveLength(2);
    for (const heading of [
      "1. CÍM",
      "2. CÉL",
      "3. SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK",
      "4. BIZTONSÁGI ELŐÍRÁSOK",
      "5. LÉPÉSEK",
      "6. MINŐSÉGI ELLENŐRZÉS",
    ]) {
      expect(state.draft).toContain(`\n${heading}\n`);
    }
    const doc = parseTwiText(state.draft ?? "");
    expect(doc?.steps.length).toBeGreaterThanOrEqual(3);
    for (const step of doc?.steps ?? []) {
      expect(step.action).not.toBe("");
      expect(step.keyPoints.length).toBeGreaterThan(0);
      expect(step.rationale).not.toBe("");
    }
    expect(state.status).toBe("review_needed");
    expect(state.draft_metadata).toEqual({ model: OFFLINE_MODEL_ID, generated_at: expect.any(String), revision: 0 });
    expect(state.llm_model).toBe(OFFLINE_MODEL_ID);
    expect(state.llm_tokens_used).toBeGreaterThan(0);
  });

  it("keeps one label when a real model echoes it", async () => {
    const model = new ScriptedChatModel([
      "generate_twi",
      `⚠ AI által generált tartalom — emberi felülvizsgálat szükséges.\n1. CÍM\nX`,
    ]);
    const { assistant } = app({ model });
    await assistant.start(conversation("c1", PALLET_REQUEST));
    const draft = (await assistant.state("c1")).draft ?? "";
    expect(draft).toBe(`${AI_LABEL}\n\n1. CÍM\nX`);
  });

  it("asks back instead of inventing when the request names no steps of an unknown job", async () => {
    const { assistant } = app();
    const view = await assistant.start(conversation("c1", "Írj TWI-t a festőkabin tisztításáról."));
    expect(view.kind === "review" && view.isInstruction).toBe(false);
    const draft = (await assistant.state("c1")).draft ?? "";
    expect(draft.startsWith(AI_LABEL)).toBe(true);
    expect(draft).toContain("KIEGÉSZÍTŐ INFORMÁCIÓ SZÜKSÉGES");
    expect(draft).toContain("Milyen lépésekből áll a munka");
    // The answer comes back as revision feedback and becomes the draft.
    const next = await assistant.decide("c1", {
      action: "revision_requested",
      feedback:
        "Lépések: 1. Kapcsolja ki az elszívást. 2. Kaparja le a festéket (műanyag kaparóval), mert a fém megsérti a falat.",
    });
    expect(next.kind === "review" && next.isInstruction).toBe(true);
    const doc = parseTwiText((await assistant.state("c1")).draft ?? "");
    expect(doc?.steps.map((s) => s.action)).toEqual(["Kapcsolja ki az elszívást.", "Kaparja le a festéket."]);
    expect(doc?.steps[1]?.keyPoints).toEqual(["műanyag kaparóval"]);
    expect(doc?.steps[1]?.rationale).toBe("A fém megsérti a falat.");
  });
});

describe("review loop", () => {
  it("a revision increments the count, and the next draft is written from the previous one and the feedback", async () => {
    const model = createOfflineTwiModel();
    const { assistant } = app({ model });
    await assistant.start(conversation("c1", PALLET_REQUEST));
    const first = (await assistant.state("c1")).draft ?? "";
    const feedback = "Biztonság: Fóliavágáskor vágásbiztos kesztyűt kell viselni";
    const view = await assistant.decide("c1", { action: "revision_requested", feedback });
    expect(view).toMatchObject({ kind: "review", revision: 1, revisionsLeft: 2 });
    const state = await assistant.state("c1");
    expect(state.revision_count).toBe(1);
    expect(state.revision_feedback).toBe(feedback);
    expect(state.draft_metadata?.revision).toBe(1);
    expect(parseTwiText(state.draft ?? "")?.safety).toContain("Fóliavágáskor vágásbiztos kesztyűt kell viselni.");
    // The second generate call carried the previous draft and the feedback.
    const prompt = model.calls.at(-1)?.messages.at(-1)?.content ?? "";
    expect(prompt).toContain(first.slice(AI_LABEL.length).trim().slice(0, 200));
    expect(prompt).toContain(feedback);
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("the fourth revision request is forced to final approval, without a fourth regeneration", async () => {
    const model = createOfflineTwiModel();
    const { assistant, graph } = app({ model });
    await assistant.start(conversation("c1", PALLET_REQUEST));
    for (let round = 1; round <= 3; round++) {
      const view = await assistant.decide("c1", {
        action: "revision_requested",
        feedback: `Ellenőrzés: ${round}. pont`,
      });
      expect(view).toMatchObject({ kind: "review", revision: round });
    }
    const forced = await assistant.decide("c1", { action: "revision_requested", feedback: "Még egy kérés" });
    expect(forced).toMatchObject({
      kind: "final_approval",
      forced: true,
      pendingFeedback: "Még egy kérés",
      revision: 3,
    });
    expect((await graph.getState({ threadId: "c1" })).next).toEqual(["approve"]);
    expect(model.calls.filter((c) => c.rule === "generate")).toHaveLength(4); // first draft + 3 revisions
    const done = await assistant.decide("c1", { action: "final_approved" });
    expect(done.kind).toBe("completed");
    expect((await assistant.state("c1")).revision_count).toBe(4);
  });

  it("rejection ends the run: no PDF, no audit row", async () => {
    const { assistant, graph, services } = app();
    await assistant.start(conversation("c1", PALLET_REQUEST));
    const view = await assistant.decide("c1", { action: "rejected" });
    expect(view.kind).toBe("rejected");
    const snapshot = await graph.getState({ threadId: "c1" });
    expect(snapshot.next).toEqual([]);
    expect(snapshot.values.status).toBe("rejected");
    expect(snapshot.values.pdf_url).toBeNull();
    expect(await services.audit.get("c1")).toBeUndefined();
  });

  it("refuses decisions that do not fit the pause", async () => {
    const { assistant } = app();
    await assistant.start(conversation("c1", PALLET_REQUEST));
    await expect(assistant.decide("c1", { action: "final_approved" })).rejects.toMatchObject({ code: "WRONG_PAUSE" });
    await expect(assistant.decide("c1", { action: "revision_requested", feedback: "  " })).rejects.toMatchObject({
      code: "FEEDBACK_REQUIRED",
    });
    await expect(assistant.decide("nope", { action: "approved" })).rejects.toMatchObject({
      code: "UNKNOWN_CONVERSATION",
    });
    await assistant.decide("c1", { action: "rejected" });
    await expect(assistant.decide("c1", { action: "approved" })).rejects.toMatchObject({ code: "NOT_PAUSED" });
  });
});

describe("approval → output → audit", () => {
  it("approves twice, publishes a signed PDF link and writes one audit row with every field", async () => {
    const model = createOfflineTwiModel();
    const { assistant, services, blobs } = app({ model });
    await assistant.start(conversation("conv-1", PALLET_REQUEST));
    const atApproval = await assistant.decide("conv-1", { action: "approved" });
    expect(atApproval).toMatchObject({ kind: "final_approval", forced: false });
    const done = await assistant.decide("conv-1", {
      action: "final_approved",
      approvalTimestamp: "2025-03-01T09:30:00.000Z",
    });
    expect(done).toMatchObject({
      kind: "completed",
      pdfBlobName: "acme/conv-1/twi-r0.pdf",
      approvalTimestamp: "2025-03-01T09:30:00.000Z",
    });
    if (done.kind !== "completed") throw new Error("not completed");
    expect(done.pdfUrl).toMatch(
      /^http:\/\/127\.0\.0\.1:8123\/apps\/twi-author\/blobs\/acme\/conv-1\/twi-r0\.pdf\?expires=\d+&sig=[\w-]{43}$/,
    );
    const blob = await blobs.read("acme/conv-1/twi-r0.pdf");
    expect(new TextDecoder().decode(blob?.bytes.subarray(0, 5))).toBe("%PDF-");

    const state = await assistant.state("conv-1");
    expect(state.status).toBe("completed");
    expect(await services.audit.get("conv-1")).toEqual({
      conversation_id: "conv-1",
      user_id: "user-1",
      tenant_id: "acme",
      channel: "msteams",
      intent: "generate_twi",
      llm_model: OFFLINE_MODEL_ID,
      revision_count: 0,
      pdf_blob_name: "acme/conv-1/twi-r0.pdf",
      status: "completed",
      approval_timestamp: "2025-03-01T09:30:00.000Z",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // Two LLM calls in all: nothing ran again on either resume.
    expect(model.calls.map((c) => c.rule)).toEqual(["intent", "generate"]);
  });

  it("a failed model call leaves the conversation resumable; the intent call is not repeated", async () => {
    const model = new ScriptedChatModel(["generate_twi", new Error("provider down"), "1. CÍM\nX"]);
    const { assistant } = app({ model });
    await expect(assistant.start(conversation("c1", PALLET_REQUEST))).rejects.toThrow("provider down");
    const view = await assistant.start(conversation("c1", PALLET_REQUEST));
    expect(view.kind).toBe("review");
    expect(model.calls).toHaveLength(3);
    expect((await assistant.state("c1")).draft).toBe(`${AI_LABEL}\n\n1. CÍM\nX`);
  });

  it("starting a conversation twice (a redelivered webhook) changes nothing", async () => {
    const model = createOfflineTwiModel();
    const { assistant } = app({ model });
    const first = await assistant.start(conversation("c1", PALLET_REQUEST));
    const again = await assistant.start(conversation("c1", PALLET_REQUEST));
    expect(again).toEqual(first);
    expect(model.calls).toHaveLength(2);
  });
});
