// Issue 24, finding 3: an AG-UI client that disconnects while the reporting agent waits for answers
// learns, when it comes back, the conversation with the pending questions (MESSAGES_SNAPSHOT), the
// questions and the inspector's answers are messages of that conversation, and a paused thread leaves
// the client no tool call without a result. Driven by @ag-ui/client's HttpAgent (SSE) and the WebSocket.
import { HttpAgent, type Message } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import { WsFrontend } from "./ag-ui-client.js";
import { servedInspectionApp } from "./served-app.js";

const ASK = "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854";
const ANSWER = "hoofdstraat 2, ja, nee";
const QUESTIONS =
  "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?";

const app = servedInspectionApp("inspection-reconnect-");

const agentFor = (threadId: string) =>
  new HttpAgent({ url: `${app.server.url}/apps/inspection-reporter/ag-ui`, threadId });

/** Tool calls of assistant messages that have no tool message answering them. */
function callsWithoutResult(messages: readonly Message[]): string[] {
  const answered = new Set(messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  return messages.flatMap((m) =>
    m.role === "assistant" ? (m.toolCalls ?? []).filter((c) => !answered.has(c.id)).map((c) => c.function.name) : [],
  );
}

/** The conversation as the inspector reads it: user and assistant texts. */
const texts = (messages: readonly Message[]) =>
  messages.flatMap((m) => ((m.role === "user" || m.role === "assistant") && m.content ? [[m.role, m.content]] : []));

describe("an HttpAgent that disconnects while the questions wait", () => {
  it("gets the conversation with the pending questions when it comes back, answers them, and the answer is kept", async () => {
    const first = agentFor("reconnect-sse");
    first.messages = [{ id: "u1", role: "user", content: ASK }];
    await first.runAgent({});
    expect(first.messages.at(-1)).toMatchObject({ role: "assistant", content: QUESTIONS });
    // the paused thread leaves the client no tool call waiting for a result it could never get
    expect(callsWithoutResult(first.messages)).toEqual([]);

    // the phone drops the connection; the app is opened again with nothing but the thread id
    const back = agentFor("reconnect-sse");
    const synced = await back.runAgent({});
    expect(texts(back.messages)).toEqual([
      ["user", ASK],
      ["assistant", "Ik geef u door aan de rapportage-assistent."],
      ["assistant", "Ik maak een conceptrapport aan voor Restaurant Bella Rosa."],
      ["assistant", QUESTIONS],
    ]);
    expect(callsWithoutResult(back.messages)).toEqual([]);
    expect(back.messages.at(-1)?.id).toMatch(/^clarification-/);
    expect(synced.result).toMatchObject({
      current_agent: "reporting-agent",
      awaiting_clarification: true,
      pending_clarification: { message_id: back.messages.at(-1)?.id, display_text: QUESTIONS },
    });
    expect((back.state as { current_agent: string }).current_agent).toBe("reporting-agent");

    back.messages.push({ id: "u2", role: "user", content: ANSWER });
    await back.runAgent({});
    const report = back.messages.at(-1);
    expect(String(report?.content)).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
    expect(callsWithoutResult(back.messages)).toEqual([]);

    // a third client, after the report: the questions and the answer are in the conversation, in order
    const later = agentFor("reconnect-sse");
    await later.runAgent({});
    const conversation = texts(later.messages);
    const asked = conversation.findIndex(([, text]) => text === QUESTIONS);
    expect(asked).toBeGreaterThan(0);
    expect(conversation[asked + 1]).toEqual(["user", ANSWER]);
    expect(conversation.at(-1)?.[1]).toContain("# Inspectierapport Restaurant Bella Rosa");
    expect(later.messages.map((m) => m.id)).toEqual(back.messages.map((m) => m.id));
  });

  it("does not run an answer again that a client re-sends after its connection dropped", async () => {
    const agent = agentFor("resend-sse");
    agent.messages = [{ id: "u1", role: "user", content: ASK }];
    await agent.runAgent({});
    const questionsId = agent.messages.at(-1)?.id as string;
    agent.messages.push({ id: "u2", role: "user", content: ANSWER });
    await agent.runAgent({});
    const done = agent.messages.length;

    // the answer's response was lost: the client sends the same conversation again
    const stale = agentFor("resend-sse");
    stale.messages = [
      { id: "u1", role: "user", content: ASK },
      { id: questionsId, role: "assistant", content: QUESTIONS },
      { id: "u2", role: "user", content: ANSWER },
    ];
    const again = await stale.runAgent({});
    expect(again.result).toMatchObject({ awaiting_clarification: false, current_agent: "reporting-agent" });
    expect(stale.messages.map((m) => m.id)).toEqual(agent.messages.map((m) => m.id));
    expect(stale.messages).toHaveLength(done);
    expect(String(stale.messages.at(-1)?.content)).toContain("Het inspectierapport is klaar");
  });
});

describe("a WebSocket client that reconnects while the questions wait", () => {
  it("gets MESSAGES_SNAPSHOT with the questions and RUN_FINISHED naming them, without a new run", async () => {
    const before = await WsFrontend.connect(app.server.wsUrl, "reconnect-ws");
    await before.say(ASK);
    before.close();

    const after = await WsFrontend.connect(app.server.wsUrl, "reconnect-ws");
    const events = await after.sendRaw(
      JSON.stringify({ threadId: "reconnect-ws", runId: "sync-1", messages: [], tools: [], context: [], state: {} }),
    );
    for (const event of events) EventSchemas.parse(event);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    const snapshot = events[1] as unknown as { messages: Message[] };
    expect(snapshot.messages.at(-1)).toMatchObject({ role: "assistant", content: QUESTIONS });
    expect(snapshot.messages[0]).toMatchObject({ role: "user", content: ASK });
    expect(callsWithoutResult(snapshot.messages)).toEqual([]);
    expect(events[3]).toMatchObject({
      threadId: "reconnect-ws",
      runId: "sync-1",
      result: { awaiting_clarification: true, pending_clarification: { display_text: QUESTIONS } },
    });

    // its next message is the answer, and it knew that it would be
    after.messages.push(
      { id: "u1", role: "user", content: ASK },
      { id: snapshot.messages.at(-1)?.id as string, role: "assistant", content: QUESTIONS },
    );
    const answered = await after.say(ANSWER);
    expect(answered.texts.at(-1)).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
    after.close();
  });
});
