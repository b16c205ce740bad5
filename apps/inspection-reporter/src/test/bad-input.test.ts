// Issue 24, finding 5: bad input at the doors. An AG-UI resume naming an interrupt that is not pending
// is refused, as is a resume on a thread that waits for nothing; a malformed frame is answered with an
// error that names the thread and run when it can; one message limit for every door, with a message
// that says so; unknown threads are 404.
import { HttpAgent } from "@ag-ui/client";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_CHARS } from "../orchestrator/orchestrator.js";
import { type ReceivedEvent, WsFrontend } from "./ag-ui-client.js";
import { servedInspectionApp } from "./served-app.js";

const ASK = "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854";
const QUESTIONS =
  "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?";

const app = servedInspectionApp("inspection-bad-input-");

async function threadView(threadId: string) {
  const res = await fetch(`${app.server.url}/apps/inspection-reporter/threads/${threadId}`);
  return {
    status: res.status,
    body: (await res.json()) as { messages: unknown[]; pending_clarification: { display_text: string } | null },
  };
}

function resumeFrame(threadId: string, runId: string, interruptId: string, payload: unknown) {
  return JSON.stringify({ threadId, runId, messages: [], resume: [{ interruptId, status: "resolved", payload }] });
}

describe("AG-UI resume entries over the WebSocket", () => {
  it("refuses one that names an interrupt that is not pending, and leaves the questions waiting", async () => {
    const frontend = await WsFrontend.connect(app.server.wsUrl, "bogus-resume");
    const asked = await frontend.say(ASK);
    expect(asked.finished).toMatchObject({ result: { awaiting_clarification: true } });
    const before = await threadView("bogus-resume");

    const events = await frontend.sendRaw(resumeFrame("bogus-resume", "r-bogus", "bogus-id", "hoofdstraat 2, ja, nee"));
    expect(events.at(-1)).toMatchObject({
      type: "RUN_ERROR",
      code: "RESUME_MISMATCH",
      threadId: "bogus-resume",
      runId: "r-bogus",
    });
    expect(String(events.at(-1)?.message)).toContain('"bogus-id"');
    const after = await threadView("bogus-resume");
    expect(after.body.pending_clarification?.display_text).toBe(QUESTIONS);
    expect(after.body.messages).toEqual(before.body.messages);

    // the pending clarification named by the id RUN_FINISHED gave is answered
    const result = asked.finished?.result as { pending_clarification: { interrupt_id: string } } | undefined;
    const pending = result?.pending_clarification as { interrupt_id: string };
    const answered = await frontend.sendRaw(
      resumeFrame("bogus-resume", "r-ok", pending.interrupt_id, "hoofdstraat 2, ja, nee"),
    );
    expect(answered.at(-1)).toMatchObject({ type: "RUN_FINISHED", result: { awaiting_clarification: false } });
    frontend.close();
  });

  it("refuses one on a thread that waits for nothing, instead of taking it as a new message", async () => {
    const frontend = await WsFrontend.connect(app.server.wsUrl, "nothing-pending");
    await frontend.say("Wat zijn de regels voor het koelen van levensmiddelen?");
    const before = await threadView("nothing-pending");
    const events = await frontend.sendRaw(resumeFrame("nothing-pending", "r-1", "bogus-id", "Hallo"));
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "NOTHING_TO_RESUME", threadId: "nothing-pending" });
    expect((await threadView("nothing-pending")).body.messages).toEqual(before.body.messages);
    frontend.close();
  });

  it("is refused through @ag-ui/client's HttpAgent over SSE too", async () => {
    const agent = new HttpAgent({ url: `${app.server.url}/apps/inspection-reporter/ag-ui`, threadId: "bogus-sse" });
    agent.messages = [{ id: "u1", role: "user", content: ASK }];
    await agent.runAgent({});
    const errors: ReceivedEvent[] = [];
    await agent
      .runAgent(
        { resume: [{ interruptId: "bogus-id", status: "resolved", payload: "hoofdstraat 2, ja, nee" }] },
        {
          onRunErrorEvent: ({ event }) => {
            errors.push(event as unknown as ReceivedEvent);
          },
        },
      )
      .catch(() => undefined);
    expect(errors[0]).toMatchObject({ code: "RESUME_MISMATCH" });
    expect((await threadView("bogus-sse")).body.pending_clarification?.display_text).toBe(QUESTIONS);
  });
});

describe("malformed WebSocket frames", () => {
  it("get RUN_ERROR naming the thread and run when the frame names them", async () => {
    const frontend = await WsFrontend.connect(app.server.wsUrl);
    const noMessages = await frontend.sendRaw(JSON.stringify({ threadId: "never-started", runId: "r-x", messages: 5 }));
    expect(noMessages.at(-1)).toMatchObject({
      type: "RUN_ERROR",
      code: "INVALID_ARGUMENT",
      threadId: "never-started",
      runId: "r-x",
    });
    const broken = await frontend.sendRaw("{ not json");
    expect(broken).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "INVALID_ARGUMENT" })]);
    frontend.close();
  });
});

describe("a frontend tool result no tool call waits for", () => {
  it("is refused with a message that names the call, and runs nothing", async () => {
    const frontend = await WsFrontend.connect(app.server.wsUrl, "frontend-tool");
    await frontend.say("Hallo");
    const before = await threadView("frontend-tool");
    const events = await frontend.sendRaw(
      JSON.stringify({
        threadId: "frontend-tool",
        runId: "r-tool",
        tools: [{ name: "show_map", description: "Shows a map", parameters: { type: "object" } }],
        messages: [{ id: "t1", role: "tool", toolCallId: "never-asked", content: "{}" }],
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "INVALID_ARGUMENT", threadId: "frontend-tool" });
    expect(String(events.at(-1)?.message)).toContain(
      'Tool result "t1" answers tool call "never-asked", which is unknown: no tool call waits for a result',
    );
    expect((await threadView("frontend-tool")).body.messages).toEqual(before.body.messages);
    frontend.close();
  });
});

describe("one message limit for every door", () => {
  const long = "a".repeat(MAX_MESSAGE_CHARS + 1);
  const limit = new RegExp(`at most ${MAX_MESSAGE_CHARS.toLocaleString("en-US")} characters`);

  it("refuses a longer message over the WebSocket, stores nothing and echoes nothing", async () => {
    const frontend = await WsFrontend.connect(app.server.wsUrl, "long-ws");
    const events = await frontend.sendRaw(
      JSON.stringify({ threadId: "long-ws", runId: "r-long", messages: [{ id: "u1", role: "user", content: long }] }),
    );
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "INVALID_ARGUMENT", threadId: "long-ws" });
    expect(String(events.at(-1)?.message)).toMatch(limit);
    expect(JSON.stringify(events).length).toBeLessThan(2_000);
    expect((await threadView("long-ws")).status).toBe(404);
    frontend.close();
  });

  it("refuses it over /chat and AG-UI SSE with the same message", async () => {
    const chat = await fetch(`${app.server.url}/apps/inspection-reporter/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ thread_id: "long-chat", message: long }),
    });
    expect(chat.status).toBe(400);
    expect(((await chat.json()) as { message: string }).message).toMatch(limit);

    const sse = await fetch(`${app.server.url}/apps/inspection-reporter/ag-ui`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: "long-sse",
        runId: "r1",
        messages: [{ id: "u1", role: "user", content: long }],
      }),
    });
    const text = await sse.text();
    expect(text).toMatch(limit);
    expect(text).toContain('"RUN_ERROR"');
    expect((await threadView("long-chat")).status).toBe(404);
    expect((await threadView("long-sse")).status).toBe(404);
  });

  it("takes a message of exactly the limit", async () => {
    const res = await fetch(`${app.server.url}/apps/inspection-reporter/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ thread_id: "long-ok", message: `Hallo ${"a".repeat(MAX_MESSAGE_CHARS - 6)}` }),
    });
    expect(res.status).toBe(200);
  });
});

describe("unknown threads", () => {
  it("are 404 on the app's GET /threads/:id", async () => {
    const res = await fetch(`${app.server.url}/apps/inspection-reporter/threads/never-seen`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "NOT_FOUND" });
  });
});
