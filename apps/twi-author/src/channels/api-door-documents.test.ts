/**
 * Issue 35, twi-author findings 1–6, through the Agent Server API with the official SDK `Client` (what
 * agent-chat-ui uses): an edit without a section is refused naming it, an edit at the final approval
 * goes back to the review, feedback lands in the step it names and the note says where, steps written
 * with ordinals, `a(z)` and parentheses are read as written, jobs the offline writer does not know get
 * a draft or one question (never the `unknown` dead end), gaps block the approval naming where, titles
 * are in the nominative, and a conversation starts from `{ messages }` alone.
 */
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import type { TwiPauseRequest } from "../review-request.js";
import type { AgentState } from "../state.js";
import { apiDoor } from "../test/api-door.js";
import { PALLET_REQUEST } from "../test/test-app.js";
import { parseTwiText } from "../twi-document.js";

const t = apiDoor("twi-api-documents-");
const ASSISTANT = "twi-author";

function client(): Client {
  return new Client({ apiUrl: t.door.url, apiKey: null });
}

async function start(input: Record<string, unknown>): Promise<string> {
  const c = client();
  const { thread_id } = await c.threads.create();
  await c.runs.wait(thread_id, ASSISTANT, { input });
  return thread_id;
}

const request = (message: string) => start({ user_id: "u1", tenant_id: "acme", channel: "cli", message });

async function pending(threadId: string): Promise<TwiPauseRequest[]> {
  const state = await client().threads.getState(threadId);
  return state.tasks.flatMap((task) => task.interrupts.map((i) => i.value as TwiPauseRequest));
}

async function values(threadId: string): Promise<AgentState> {
  return (await client().threads.getState(threadId)).values as unknown as AgentState;
}

async function answer(threadId: string, decisions: unknown): Promise<void> {
  await client().runs.wait(threadId, ASSISTANT, { command: { resume: decisions } });
}

const edit = (draft: string) => ({
  decisions: [{ type: "edit", edited_action: { name: "twi_draft_review", args: { draft } } }],
});

describe("edited drafts keep all six sections", () => {
  it.each([
    ["section 4 left out", (d: string) => d.replace(/4\. BIZTONSÁGI ELŐÍRÁSOK\n(?:- .*\n)+/, "")],
    ["section 4 emptied", (d: string) => d.replace(/(4\. BIZTONSÁGI ELŐÍRÁSOK\n)(?:- .*\n)+/, "$1\n")],
  ])("%s: the edit is refused naming 4. BIZTONSÁGI ELŐÍRÁSOK; the draft is unchanged", async (_what, cut) => {
    const threadId = await request(PALLET_REQUEST);
    const before = String((await values(threadId)).draft);
    const edited = cut(before);
    expect(edited).not.toBe(before);
    await answer(threadId, edit(edited));
    const [again] = await pending(threadId);
    expect(again?.pause).toBe("review");
    expect(again?.not_a_decision).toContain("üres rész: 4. BIZTONSÁGI ELŐÍRÁSOK");
    expect(await values(threadId)).toMatchObject({ status: "review_needed", draft: before });
  });

  it("the same edit sent to the final approval is refused too; a complete one goes back to the review", async () => {
    const threadId = await request(PALLET_REQUEST);
    await answer(threadId, { decisions: [{ type: "approve" }] });
    const draft = String((await values(threadId)).draft);
    await answer(threadId, {
      decisions: [
        {
          type: "edit",
          edited_action: { name: "twi_publish", args: { draft: draft.replace(/4\. BIZ.*\n(?:- .*\n)+/, "") } },
        },
      ],
    });
    const [again] = await pending(threadId);
    expect(again?.pause).toBe("approve");
    expect(again?.not_a_decision).toContain("4. BIZTONSÁGI ELŐÍRÁSOK");
    expect((await values(threadId)).pdf_url).toBeNull();
  });
});

describe("feedback lands where it points, and the note says so", () => {
  it("'A 2. lépés kulcspont: …' becomes step 2's key point, not a tool; the note names the step", async () => {
    const threadId = await request(PALLET_REQUEST);
    const before = parseTwiText(String((await values(threadId)).draft));
    await answer(threadId, { decisions: [{ type: "reject", message: "A 2. lépés kulcspont: 25 Nm-re állítsa" }] });
    const draft = String((await values(threadId)).draft);
    const doc = parseTwiText(draft);
    expect(doc?.steps[1]?.keyPoints).toContain("25 Nm-re állítsa");
    expect(doc?.materials).toEqual(before?.materials);
    expect(draft).toContain("„A 2. lépés kulcspont: 25 Nm-re állítsa” → 5. LÉPÉSEK / 2. lépés, kulcspont");
  });

  it("free text naming a step goes to that step; a step that does not exist is reported, not claimed", async () => {
    const threadId = await request(PALLET_REQUEST);
    await answer(threadId, {
      decisions: [{ type: "reject", message: "A 3. lépésnél a fólia ne gyűrődjön; 9. lépés kulcspont: semmi" }],
    });
    const draft = String((await values(threadId)).draft);
    expect(parseTwiText(draft)?.steps[2]?.keyPoints).toContain("A 3. lépésnél a fólia ne gyűrődjön");
    expect(draft).toMatch(/nem tudott a vázlatba illeszteni — kérjük, ellenőrizze: „9\. lépés kulcspont: semmi”/);
    expect(draft).not.toMatch(/beépítve:[^\n]*9\. lépés/);
  });
});

describe("steps are read as written", () => {
  it("ordinals, a(z) and parentheses stay inside their step; 'ügyelve arra, hogy …' is one key point", async () => {
    const threadId = await request(
      "Írj TWI-t a dobozok áthelyezéséről. Lépések: 1. Vegye le a dobozt a 2. polcról (a(z) alsó fogantyúnál fogja) " +
        "2. Tegye a kocsira (ügyelve arra, hogy a címke kifelé nézzen), mert a szkenner csak így olvassa 3. Tolja a 4. kapuhoz",
    );
    const doc = parseTwiText(String((await values(threadId)).draft));
    expect(doc?.steps.map((s) => s.action)).toEqual([
      "Vegye le a dobozt a 2. polcról.",
      "Tegye a kocsira.",
      "Tolja a 4. kapuhoz.",
    ]);
    expect(doc?.steps[0]?.keyPoints).toEqual(["a(z) alsó fogantyúnál fogja"]);
    expect(doc?.steps[1]?.keyPoints).toEqual(["a címke kifelé nézzen"]);
    expect(doc?.steps[1]?.rationale).toBe("A szkenner csak így olvassa.");
  });

  it("120 numbered steps, each naming a shelf by its ordinal, are 120 steps", async () => {
    const steps = Array.from({ length: 120 }, (_, i) => `${i + 1}. Tegye a ${i + 1}. alkatrészt a 2. rekeszbe`);
    const threadId = await request(`Írj TWI-t a szerelésről. Lépések:\n${steps.join("\n")}`);
    const doc = parseTwiText(String((await values(threadId)).draft));
    expect(doc?.steps).toHaveLength(120);
    expect(doc?.steps[119]?.action).toBe("Tegye a 120. alkatrészt a 2. rekeszbe.");
  });

  it("a bulleted list with a wrapped line is one step per bullet", async () => {
    const threadId = await request(
      "Írj TWI-t a szűrőcseréről.\nLépések:\n- Kapcsolja ki a ventilátort\n- Vegye ki a régi szűrőt\n  a keretével együtt\n- Tegye be az újat",
    );
    const doc = parseTwiText(String((await values(threadId)).draft));
    expect(doc?.steps.map((s) => s.action)).toEqual([
      "Kapcsolja ki a ventilátort.",
      "Vegye ki a régi szűrőt a keretével együtt.",
      "Tegye be az újat.",
    ]);
  });
});

describe("jobs the offline writer does not name in a stock phrase", () => {
  it.each([
    ["Torque-wrench bolting job for the gearbox cover", "Csavarkötés meghúzása nyomatékkulccsal"],
    ["Betanítási anyag kellene a tengely méréséről tolómérővel", "Külső átmérő mérése digitális tolómérővel"],
  ])("%s → a draft, not the unknown dead end", async (message, title) => {
    const threadId = await request(message);
    const state = await values(threadId);
    expect(state.intent).toBe("generate_twi");
    expect(parseTwiText(String(state.draft))?.title).toBe(title);
    expect((await pending(threadId))[0]?.pause).toBe("review");
  });

  it("a job it cannot draft gets one question about that job", async () => {
    const threadId = await request("A festőkabin heti takarítása");
    const state = await values(threadId);
    expect(state.intent).toBe("generate_twi");
    expect(state.draft).toContain("KIEGÉSZÍTŐ INFORMÁCIÓ SZÜKSÉGES");
    expect(state.draft).toContain("1. Milyen lépésekből áll a munka („Festőkabin heti takarítása”)");
    expect(state.draft).not.toMatch(/\n2\. /);
  });
});

describe("gaps and titles", () => {
  it("a draft with [KIEGÉSZÍTENDŐ] left cannot be approved: approve is not offered and is refused naming where", async () => {
    const threadId = await request("Írj TWI-t a címkézésről. Lépések: 1. Vegye le a címkét 2. Ragassza fel");
    const [review] = await pending(threadId);
    expect(review?.review_configs[0]?.allowed_decisions).toEqual(["edit", "reject"]);
    await answer(threadId, { decisions: [{ type: "approve" }] });
    const [again] = await pending(threadId);
    expect(again?.pause).toBe("review");
    expect(again?.not_a_decision).toContain("3. SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK");
    expect(again?.not_a_decision).toContain("5. LÉPÉSEK / 1. lépés");
  });

  it("'Készíts betanítási útmutatót arról, hogyan kell …' is titled in the nominative", async () => {
    const threadId = await request(
      "Készíts betanítási útmutatót arról, hogyan kell a hengerfejet felszerelni. Lépések: 1. Tisztítsa meg a felületet 2. Helyezze fel a tömítést",
    );
    const title = parseTwiText(String((await values(threadId)).draft))?.title ?? "";
    expect(title).toBe("Hogyan kell a hengerfejet felszerelni");
    expect(title).not.toMatch(/útmutatót|arról/u);
  });
});

describe("LangGraph's chat convention: { messages } only", () => {
  it("a conversation starts from messages alone (human message with content blocks), and the pauses answer", async () => {
    const threadId = await start({
      messages: [{ type: "human", content: [{ type: "text", text: PALLET_REQUEST }] }],
    });
    const state = await values(threadId);
    expect(state).toMatchObject({ status: "review_needed", message: PALLET_REQUEST, intent: "generate_twi" });
    expect(parseTwiText(String(state.draft))?.title).toBe("Raklap kézi stretch-fóliázása");
    await answer(threadId, { decisions: [{ type: "approve" }] });
    await answer(threadId, { decisions: [{ type: "approve" }] });
    expect((await values(threadId)).status).toBe("completed");
  });

  it("a new chat message on a finished thread is the new request, not the old one", async () => {
    const threadId = await start({ messages: [{ type: "human", content: "Szia!" }] });
    expect((await values(threadId)).intent).toBe("unknown");
    await client().runs.wait(threadId, ASSISTANT, {
      input: { messages: [{ type: "human", content: "Írj TWI-t a forrasztásról." }] },
    });
    const state = await values(threadId);
    expect(state).toMatchObject({ intent: "generate_twi", message: "Írj TWI-t a forrasztásról." });
  });
});

describe("the final pause publishes only the reviewed draft", () => {
  it("a draft changed by a state update at the final pause goes back to the review; nothing is published", async () => {
    const threadId = await request(PALLET_REQUEST);
    await answer(threadId, { decisions: [{ type: "approve" }] });
    const reviewed = String((await values(threadId)).draft);
    const changed = reviewed.replace(/1\. CÍM\n.*/, "1. CÍM\nNem felülvizsgált cím");
    await client().runs.wait(threadId, ASSISTANT, {
      command: { update: { draft: changed, status: "approved", approval_timestamp: "2026-11-28T12:00:00.000Z" } },
    });
    const state = await values(threadId);
    expect(state).toMatchObject({ status: "review_needed", pdf_url: null, draft: changed });
    expect((await pending(threadId))[0]?.pause).toBe("review");
    // reviewed and approved twice, it is published
    await answer(threadId, { decisions: [{ type: "approve" }] });
    await answer(threadId, { decisions: [{ type: "approve" }] });
    expect(await values(threadId)).toMatchObject({ status: "completed", draft: changed });
  });
});
