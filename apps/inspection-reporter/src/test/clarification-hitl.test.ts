// Issue 36, inspection-reporter finding 5: the clarification pause is also LangChain's HITL request
// (`action_requests` + `review_configs`), so agent-chat-ui — which shows other interrupts read-only —
// can answer it. Driven with the official SDK Client as agent-chat-ui drives a thread: edit with the
// answer in the action's args (free text, or one arg per field), reject with a message (the message is
// the answer), reject without one (stop; the draft is kept); approve is offered only where every question
// asks to confirm a noted value (request-clarification.test.ts), so here it is refused and asked again,
// as any malformed decision is. The app's own doors keep answering with text (stated-facts.test.ts).
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import type { ClarificationRequest } from "../agents/request-clarification.js";
import { servedInspectionApp } from "./served-app.js";

const app = servedInspectionApp("inspection-clarification-hitl-");
const ASSISTANT = "inspection-reporter";

const client = () => new Client({ apiUrl: app.server.url, apiKey: null });

async function start(message: string): Promise<string> {
  const { thread_id } = await client().threads.create();
  await client().runs.wait(thread_id, ASSISTANT, { input: { messages: [{ type: "human", content: message }] } });
  return thread_id;
}

async function pending(threadId: string): Promise<ClarificationRequest | undefined> {
  const state = await client().threads.getState(threadId);
  return state.tasks.flatMap((t) => t.interrupts.map((i) => i.value as ClarificationRequest))[0];
}

async function decide(threadId: string, decision: unknown): Promise<string> {
  const values = (await client().runs.wait(threadId, ASSISTANT, {
    command: { resume: { decisions: [decision] } },
  })) as { messages?: Array<{ type?: string; role?: string; content: unknown }> };
  const last = (values.messages ?? []).filter((m) => (m.type ?? m.role) === "ai" || m.role === "assistant").at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
}

const ASK = "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854";

describe("the clarification in LangChain's HITL shape, answered with the SDK Client", () => {
  it("offers the questions as one action whose args are the answer and one field per question", async () => {
    const threadId = await start(ASK);
    const pause = await pending(threadId);
    expect(pause?.type).toBe("clarification_request");
    expect(pause?.action_requests).toEqual([
      {
        name: "request_clarification",
        args: { answer: "", address: "", hygiene_ok: "", violations_found: "" },
        description: expect.stringContaining("1. Wat is het adres van de inspectielocatie?"),
      },
    ]);
    expect(pause?.review_configs).toEqual([
      { action_name: "request_clarification", allowed_decisions: ["edit", "reject"] },
    ]);
  });

  it("edit with one answer per field makes the report", async () => {
    const threadId = await start(ASK);
    const report = await decide(threadId, {
      type: "edit",
      edited_action: {
        name: "request_clarification",
        args: { answer: "", address: "Stationsweg 3, Leiden", hygiene_ok: "ja", violations_found: "nee" },
      },
    });
    expect(await pending(threadId)).toBeUndefined();
    expect(report).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
    expect(report).toContain("- Adres: Stationsweg 3, Leiden");
  });

  it("reject with a message is the answer; 'ja, <description>' in it keeps the description", async () => {
    const threadId = await start(ASK);
    const report = await decide(threadId, {
      type: "reject",
      message: "Markt 12 in Delft, ja, ja, muizenkeutels in de kelder",
    });
    expect(report).toContain("- Adres: Markt 12, Delft");
    expect(report).toContain("- Toelichting overtredingen: muizenkeutels in de kelder");
  });

  it("reject without a message stops verifying and keeps the draft", async () => {
    const threadId = await start(ASK);
    const reply = await decide(threadId, { type: "reject" });
    expect(await pending(threadId)).toBeUndefined();
    expect(reply).toMatch(/^Goed, ik stop met verifiëren\. Het concept IR-\d{8}-[0-9a-f]{6} blijft bewaard/);
  });

  it("a malformed decision asks the same questions again, saying why, and stores nothing", async () => {
    const threadId = await start(ASK);
    await decide(threadId, { type: "edit", edited_action: { name: "request_clarification", args: { answer: "  " } } });
    const again = await pending(threadId);
    expect(again?.not_an_answer).toContain("Een bewerking (edit) zonder antwoord");
    expect(again?.display_text).toContain("1. Wat is het adres van de inspectielocatie?");
    await decide(threadId, { type: "approve" });
    expect((await pending(threadId))?.not_an_answer).toMatch(/is not one of edit, reject/);
  });
});
