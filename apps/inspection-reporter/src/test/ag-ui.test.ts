// The app served by the Trellis server: the AG-UI WebSocket and SSE bindings under
// /apps/inspection-reporter/, the server's own endpoints next to them, and the Agent Server API.
import { join } from "node:path";
import { HttpAgent } from "@ag-ui/client";
import { describe, expect, it } from "vitest";
import { startInspectionServer } from "../serve.js";
import { WsFrontend } from "./ag-ui-client.js";
import { servedInspectionApp } from "./served-app.js";

const QUESTIONS =
  "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?";

const app = servedInspectionApp("inspection-ag-ui-");

describe("AG-UI over the WebSocket at /apps/inspection-reporter/ws", () => {
  it("shows the questions as an ordinary assistant text, takes the answer as an ordinary user message, ends with the report", async () => {
    expect(app.server.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/apps\/inspection-reporter\/ws$/);
    const frontend = await WsFrontend.connect(app.server.wsUrl);
    const first = await frontend.say("Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854");
    expect(first.events[0]).toMatchObject({ type: "RUN_STARTED", threadId: frontend.threadId });
    expect(first.texts).toEqual([
      "Ik geef u door aan de rapportage-assistent.",
      "Ik maak een conceptrapport aan voor Restaurant Bella Rosa.",
      QUESTIONS,
    ]);
    expect(first.finished).toMatchObject({
      outcome: { type: "success" },
      result: { current_agent: "reporting-agent", awaiting_clarification: true },
    });
    // Nothing about interrupts reaches the protocol.
    expect(JSON.stringify(first.events)).not.toMatch(/"interrupt"/);
    expect(first.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["STATE_SNAPSHOT", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]),
    );
    const snapshot = first.events.find((e) => e.type === "STATE_SNAPSHOT") as unknown as {
      snapshot: Record<string, unknown>;
    };
    expect(Object.keys(snapshot.snapshot).sort()).toEqual(["current_agent", "messages", "user_settings"]);

    const second = await frontend.say("hoofdstraat 2, ja, nee");
    expect(second.finished).toMatchObject({
      outcome: { type: "success" },
      result: { current_agent: "reporting-agent", awaiting_clarification: false },
    });
    const report = second.texts.at(-1) ?? "";
    expect(report).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
    expect(report).toContain("# Inspectierapport Restaurant Bella Rosa");
    expect(report).toContain("- Adres: Hoofdstraat 2");
    // The tool results of the resumed run (submit → verify → generate) were sent; the answer is no tool
    // result in the protocol but the user's message right after the questions (issue 24, finding 3).
    const results = second.events.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => e.content as string);
    expect(results).not.toContain("hoofdstraat 2, ja, nee");
    const snapshot2 = second.events.filter((e) => e.type === "MESSAGES_SNAPSHOT").at(-1) as unknown as {
      messages: Array<{ id: string; role: string; content?: string }>;
    };
    const asked = snapshot2.messages.findIndex((m) => m.content === QUESTIONS);
    expect(snapshot2.messages[asked + 1]).toMatchObject({ role: "user", content: "hoofdstraat 2, ja, nee" });
    frontend.close();
  });

  it("keeps the server's own AG-UI WebSocket working next to the app's", async () => {
    const generic = await WsFrontend.connect(`${app.server.url.replace(/^http/, "ws")}/ag-ui/inspection-reporter/ws`);
    const turn = await generic.say("Wat zijn de regels voor het koelen van levensmiddelen?");
    expect(turn.finished).toMatchObject({ outcome: { type: "success" } });
    expect(turn.texts.at(-1)).toContain("VW-KOEL-01");
    generic.close();
  });

  it("answers a bad input with RUN_ERROR and keeps the socket open", async () => {
    const frontend = await WsFrontend.connect(app.server.wsUrl);
    const broken = await frontend.sendRaw("{ not json");
    expect(broken).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "INVALID_ARGUMENT" })]);
    const noUser = await frontend.sendRaw(JSON.stringify({ threadId: "x", runId: "r", messages: [] }));
    expect(noUser.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "INVALID_ARGUMENT" });
    const fine = await frontend.say("Hallo");
    expect(fine.texts.at(-1)).toContain("Ik ben de inspectie-assistent.");
    frontend.close();
  });
});

describe("AG-UI steps", () => {
  it("wraps each agent's part of a turn in STEP_STARTED / STEP_FINISHED (issue 24, finding 6)", async () => {
    const frontend = await WsFrontend.connect(app.server.wsUrl);
    const turn = await frontend.say("Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854");
    const steps = turn.events
      .filter((e) => e.type === "STEP_STARTED" || e.type === "STEP_FINISHED")
      .map((e) => `${e.type} ${e.stepName as string}`);
    expect(steps).toEqual([
      "STEP_STARTED general-agent",
      "STEP_FINISHED general-agent",
      "STEP_STARTED reporting-agent",
      "STEP_FINISHED reporting-agent",
    ]);
    const types = turn.events.map((e) => e.type);
    // the questions belong to the reporting agent's step; the step ends before the run does
    const questions = turn.events.findIndex((e) => e.type === "TEXT_MESSAGE_CONTENT" && e.delta === QUESTIONS);
    expect(questions).toBeLessThan(types.lastIndexOf("STEP_FINISHED"));
    expect(types.lastIndexOf("STEP_FINISHED")).toBeLessThan(types.indexOf("RUN_FINISHED"));
    frontend.close();

    // @ag-ui/client checks the order of the events it gets (steps included) and keeps the steps apart
    const agent = new HttpAgent({ url: `${app.server.url}/apps/inspection-reporter/ag-ui` });
    agent.messages = [{ id: "u1", role: "user", content: "Wat zijn de regels voor het koelen van levensmiddelen?" }];
    const started: string[] = [];
    await agent.runAgent({}, { onStepStartedEvent: ({ event }) => void started.push(event.stepName) });
    expect(started).toEqual(["general-agent", "regulation-agent"]);
  });
});

describe("AG-UI over SSE at /apps/inspection-reporter/ag-ui, driven by @ag-ui/client", () => {
  it("runs the clarification flow with ordinary messages", async () => {
    const agent = new HttpAgent({ url: `${app.server.url}/apps/inspection-reporter/ag-ui` });
    agent.messages = [
      { id: "u1", role: "user", content: "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854" },
    ];
    await agent.runAgent({});
    const asked = agent.messages.at(-1);
    expect(asked).toMatchObject({ role: "assistant", content: QUESTIONS });
    agent.messages.push({ id: "u2", role: "user", content: "Hoofdstraat 2, ja, nee" });
    await agent.runAgent({});
    const last = agent.messages.at(-1);
    expect(last?.role).toBe("assistant");
    expect(String(last?.content)).toContain("# Inspectierapport Restaurant Bella Rosa");
    expect((agent.state as { current_agent: string }).current_agent).toBe("reporting-agent");
  });

  it("serves /chat and /threads/:id next to it", async () => {
    const post = (body: unknown) =>
      fetch(`${app.server.url}/apps/inspection-reporter/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const asked = (await (await post({ thread_id: "chat-1", message: "Maak een inspectierapport" })).json()) as {
      status: string;
      reply: string;
    };
    expect(asked.status).toBe("clarification");
    const view = (await (await fetch(`${app.server.url}/apps/inspection-reporter/threads/chat-1`)).json()) as {
      current_agent: string;
      pending_clarification: { type: string } | null;
    };
    expect(view).toMatchObject({
      current_agent: "reporting-agent",
      pending_clarification: { type: "clarification_request" },
    });
    expect((await post({ thread_id: "chat-1" })).status).toBe(400);
  });
});

describe("the registered graph through the Agent Server API", () => {
  it("shows the clarification interrupt and resumes with command.resume", async () => {
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${app.server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    const thread = (await call("/threads", {})) as { thread_id: string };
    const paused = await call(`/threads/${thread.thread_id}/runs/wait`, {
      assistant_id: "inspection-reporter",
      input: {
        messages: [{ role: "user", content: "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854" }],
      },
    });
    const interrupts = paused.__interrupt__ as { value: { type: string; display_text: string } }[];
    expect(interrupts[0]?.value).toMatchObject({ type: "clarification_request", display_text: QUESTIONS });
    const done = await call(`/threads/${thread.thread_id}/runs/wait`, {
      assistant_id: "inspection-reporter",
      command: { resume: "hoofdstraat 2, ja, nee" },
    });
    const messages = done.messages as { role: string; content: string }[];
    expect(messages.at(-1)?.content).toContain("# Inspectierapport Restaurant Bella Rosa");
    expect(done.activeAgent).toBe("reporting-agent");
  });
});

describe("with the server's auth on", () => {
  it("needs credentials on the WebSocket and keeps each user's threads apart", async () => {
    const secured = await startInspectionServer({
      port: 0,
      env: {},
      config: {
        graphs: {
          "inspection-reporter": {
            module: "@trellis/app-inspection-reporter/server",
            graph: "buildGraph",
            routes: "createRoutes",
          },
        },
        saver: { kind: "sqlite", path: join(app.dir, "secured.sqlite") },
        auth: {
          enabled: true,
          credentials: [
            { user: "ana", apiKey: "key-ana" },
            { user: "bo", apiKey: "key-bo" },
          ],
        },
        baseDir: app.dir,
      },
    });
    try {
      await expect(WsFrontend.connect(secured.wsUrl)).rejects.toThrow(/401/);
      const ana = await WsFrontend.connect(`${secured.wsUrl}?api_key=key-ana`, "shared-id");
      const asked = await ana.say("Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854");
      expect(asked.finished).toMatchObject({ result: { awaiting_clarification: true } });
      ana.close();
      // Ana's thread is the API's thread "shared-id", owned by her: Bo cannot answer it or read it.
      const bo = await WsFrontend.connect(`${secured.wsUrl}?api_key=key-bo`, "shared-id");
      const other = await bo.sendRaw(
        JSON.stringify({
          threadId: "shared-id",
          runId: "bo-1",
          messages: [{ id: "b1", role: "user", content: "hoofdstraat 2, ja, nee" }],
        }),
      );
      expect(other.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "NOT_FOUND" });
      bo.close();
      const unauthorised = await fetch(`${secured.url}/apps/inspection-reporter/threads/shared-id`);
      expect(unauthorised.status).toBe(401);
      const bosView = await fetch(`${secured.url}/apps/inspection-reporter/threads/shared-id`, {
        headers: { "x-api-key": "key-bo" },
      });
      expect(bosView.status).toBe(404);
      const bosApi = await fetch(`${secured.url}/threads/shared-id`, { headers: { "x-api-key": "key-bo" } });
      expect(bosApi.status).toBe(404);
      const view = await fetch(`${secured.url}/apps/inspection-reporter/threads/shared-id`, {
        headers: { "x-api-key": "key-ana" },
      });
      expect(await view.json()).toMatchObject({
        current_agent: "reporting-agent",
        pending_clarification: { type: "clarification_request" },
      });
    } finally {
      await secured.close();
    }
  });
});
