// The seed's Phase 4 scenarios, through the orchestrator (Phase 3) over the run service of an
// in-process Trellis server on SQLite, with the MCP servers running as child processes and the offline
// Dutch models.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { messageText, type RuleChatModel } from "@trellis/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AgentId } from "../agents/agent-definitions.js";
import type { InspectionGraph } from "../agents/inspection-graph.js";
import { ANONYMOUS_SETTINGS } from "../agents/user-settings.js";
import { type InspectionRuntime, openInspectionRuntime } from "../in-process.js";
import { createInspectionReporter, type InspectionReporter } from "../inspection-reporter.js";
import { recordingLogger } from "../orchestrator/logger.js";
import { ASSISTANT_ID } from "../orchestrator/orchestrator.js";

let dir: string;
let app: InspectionReporter;
let runtime: InspectionRuntime;
const log = recordingLogger();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspection-scenarios-"));
  app = await createInspectionReporter({ dataDir: join(dir, "data"), env: {}, logger: log });
  runtime = await openInspectionRuntime({ dbPath: join(dir, "threads.sqlite"), app });
});
afterAll(async () => {
  await runtime.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The thread's state, read through the graph as the server serves it. */
const stateOf = (threadId: string) =>
  (runtime.trellis.graphs.get(ASSISTANT_ID)?.graph as InspectionGraph | undefined)?.getState({ threadId }) ??
  Promise.reject(new Error("the server does not serve the inspection-reporter graph"));
beforeEach(() => {
  log.lines.length = 0;
});

const model = (id: AgentId) => app.models[id] as RuleChatModel;
const rulesOf = (id: AgentId) => model(id).calls.map((c) => c.rule);

/** One message; also returns which agents streamed model output during it (by subgraph namespace). */
async function say(threadId: string, text: string) {
  const events: string[] = [];
  const turn = await runtime.orchestrator.processMessage(threadId, text, { onEvent: (e) => events.push(e.event) });
  const agents = new Set(
    events
      .filter((name) => name.split("|")[0] === "messages")
      .map((name) => (name.split("|")[1] ?? "").split(":")[0] as string),
  );
  return { turn, agents };
}

describe("scenario 1: basic clarification flow", () => {
  it("asks the questions, and the reply resumes the reporting agent, which produces the report", async () => {
    const thread = "scenario-1";
    const first = await say(thread, "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854");
    expect(first.turn.status).toBe("clarification");
    expect(first.turn.currentAgent).toBe("reporting-agent");
    expect(first.turn.reply).toBe(
      "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?",
    );
    expect(first.turn.clarification?.request.questions.map((q) => q.field)).toEqual([
      "address",
      "hygiene_ok",
      "violations_found",
    ]);
    expect(first.turn.clarification?.request.questions[1]).toMatchObject({
      importance: "high",
      options: ["ja", "nee"],
    });
    expect(log.lines).toContain("info: Graph interrupted at node(s): reporting-agent, thread: scenario-1");

    const paused = await stateOf(thread);
    expect(paused.next).toEqual(["reporting-agent"]);
    expect(paused.interrupts[0]?.value).toMatchObject({ type: "clarification_request" });
    expect(paused.values.activeAgent).toBe("reporting-agent");

    const generalBefore = model("general-agent").calls.length;
    log.lines.length = 0;
    const second = await say(thread, "hoofdstraat 2, ja, nee");
    expect(log.lines).toContain("info: Resuming interrupted graph with: hoofdstraat 2, ja, nee...");
    expect(second.turn.resumed).toBe(true);
    expect(second.turn.status).toBe("answered");
    expect(second.turn.currentAgent).toBe("reporting-agent");
    // No detour through the general agent: it was not asked, and only the reporting agent streamed.
    expect(model("general-agent").calls.length).toBe(generalBefore);
    expect([...second.agents]).toEqual(["reporting-agent"]);
    expect(second.turn.reply).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
    expect(second.turn.reply).toContain("- Adres: Hoofdstraat 2");
    expect(second.turn.reply).toContain("- Hygiëne in orde: ja");
    expect(second.turn.reply).toContain("- Overtredingen geconstateerd: nee");

    // The answer reached the paused tool call as its result, and the report went through the MCP server.
    const done = await stateOf(thread);
    expect(done.next).toEqual([]);
    const toolNames = done.values.messages.filter((m) => m.role === "tool").map((m) => m.name);
    expect(toolNames).toEqual([
      "transfer_to_reporting",
      "start_inspection_report",
      "verify_inspection_data",
      "request_clarification",
      "submit_verification_answers",
      "generate_final_report",
    ]);
    const answer = done.values.messages.find((m) => m.role === "tool" && m.name === "request_clarification");
    expect(answer?.content).toBe("hoofdstraat 2, ja, nee");
    const generated = done.values.messages.find((m) => m.role === "tool" && m.name === "generate_final_report");
    const file = JSON.parse(messageText(generated) || "{}").file as string;
    expect(readFileSync(file, "utf8")).toContain("# Inspectierapport Restaurant Bella Rosa");
  });
});

describe("scenario 2: several clarification rounds", () => {
  it("resumes each round at the paused tool call, without routing anew", async () => {
    const thread = "scenario-2";
    const rounds: string[] = [];
    let turn = (await say(thread, "Maak een inspectierapport")).turn;
    const generalCalls = model("general-agent").calls.length;
    const answers = [
      "Bakkerij De Gouden Korst, 12345678, Kerkstraat 5, Utrecht",
      "nee, ja",
      "koelcel 9 graden, geen schoonmaakschema",
    ];
    for (const answer of answers) {
      expect(turn.status).toBe("clarification");
      rounds.push(turn.reply);
      const next = await say(thread, answer);
      expect(next.turn.resumed).toBe(true);
      expect([...next.agents]).toEqual(["reporting-agent"]);
      turn = next.turn;
    }
    expect(rounds).toEqual([
      "1. Wat is de naam van het geïnspecteerde bedrijf?\n2. Wat is het KVK-nummer van het bedrijf (8 cijfers)?\n3. Wat is het adres van de inspectielocatie?",
      "1. Was de hygiëne in orde?\n2. Zijn er overtredingen geconstateerd?",
      "1. Welke overtredingen zijn er geconstateerd?",
    ]);
    expect(model("general-agent").calls.length).toBe(generalCalls);
    expect(turn.status).toBe("answered");
    expect(turn.reply).toContain("oordeel: Voldoet niet — herinspectie aanbevolen");
    expect(turn.reply).toContain("- Adres: Kerkstraat 5, Utrecht");
    expect(turn.reply).toContain("- Toelichting overtredingen: koelcel 9 graden, geen schoonmaakschema");
    expect(turn.reply).toContain("3 verificatieronde(s)");
    expect(log.lines.filter((l) => l.startsWith("info: Resuming interrupted graph with:"))).toHaveLength(3);
  });

  it("asks again when an answer is unusable, and lets the inspector stop", async () => {
    const thread = "scenario-2b";
    await say(thread, "Maak een inspectierapport voor Snackbar 't Hoekje, KVK 87654321");
    const unclear = (await say(thread, "Dorpsplein 14, weet ik niet, ?")).turn;
    expect(unclear.status).toBe("clarification");
    // asked again with the reason (issue 24, finding 4)
    expect(unclear.reply).toBe(
      '1. Was de hygiëne in orde? (Antwoord "weet ik niet" niet bruikbaar; antwoord met ja of nee.)\n' +
        '2. Zijn er overtredingen geconstateerd? (Antwoord "?" niet bruikbaar; antwoord met ja of nee.)',
    );
    const stopped = (await say(thread, "laat maar")).turn;
    expect(stopped.status).toBe("answered");
    expect(stopped.reply).toMatch(/^Goed, ik stop met verifiëren\. Het concept IR-\d{8}-[0-9a-f]{6} blijft bewaard/);
    expect((await stateOf(thread)).next).toEqual([]);
  });
});

describe("scenario 3: other agents are unaffected", () => {
  it("answers a regulation question and its follow-up without interrupts, the follow-up straight at the specialist", async () => {
    const thread = "scenario-3";
    const first = await say(thread, "Wat zijn de regels voor het koelen van levensmiddelen?");
    expect(first.turn.status).toBe("answered");
    expect(first.turn.currentAgent).toBe("regulation-agent");
    expect(first.turn.reply).toContain("VW-KOEL-01 — Gekoeld bewaren van levensmiddelen");
    expect(first.turn.reply).toContain("7 °C");
    expect(first.turn.reply).toContain("geen officiële wettekst");

    const generalCalls = model("general-agent").calls.length;
    log.lines.length = 0;
    const followUp = await say(thread, "En hoe zit het met allergenen?");
    expect(followUp.turn.resumed).toBe(false);
    expect(followUp.turn.status).toBe("answered");
    expect(followUp.turn.currentAgent).toBe("regulation-agent");
    expect(followUp.turn.reply).toContain("ALL-01 — Allergeneninformatie aan de consument");
    expect(model("general-agent").calls.length).toBe(generalCalls);
    expect(log.lines.some((l) => l.includes("Resuming interrupted graph"))).toBe(false);
    const state = await stateOf(thread);
    expect(state.interrupts).toEqual([]);
    expect(state.next).toEqual([]);
  });

  it("looks up inspection history and hands an off-topic request back to the general agent", async () => {
    const thread = "scenario-3b";
    const history = (await say(thread, "Wat is de inspectiehistorie van KVK 92251854?")).turn;
    expect(history.currentAgent).toBe("history-agent");
    expect(history.reply).toContain("2024-03-12 — regulier, voldoet niet");
    const byName = (await say(thread, "En die van Snackbar 't Hoekje?")).turn;
    expect(byName.reply).toContain("Muizenkeutels in opslagruimte");
    const report = await say(thread, "Maak een inspectierapport voor Viswinkel Het Anker, KVK 55501234");
    expect([...report.agents]).toEqual(["history-agent", "general-agent", "reporting-agent"]);
    expect(report.turn.status).toBe("clarification");
  });

  it("stores user settings from the general agent and puts the inspector's name on the report", async () => {
    const thread = "scenario-settings";
    const saved = (await say(thread, "Mijn naam is Jan de Vries")).turn;
    expect(saved.reply).toBe("Uw instellingen zijn opgeslagen (naam: Jan de Vries). Waarmee kan ik u helpen?");
    // auth is off: one anonymous inspector, never the thread
    expect(app.settings.get(ANONYMOUS_SETTINGS)).toEqual({ inspector_name: "Jan de Vries" });
    expect(app.settings.get(thread)).toEqual({});
    await say(thread, "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854");
    const report = (await say(thread, "Hoofdstraat 2, ja, nee")).turn;
    expect(report.reply).toContain("- Inspecteur: Jan de Vries");
  });

  it("a stray reply that reaches the general agent gets help, not a settings update (the seed's bug)", async () => {
    const reply = (await say("stray", "hoofdstraat 2, ja, nee")).turn;
    expect(reply.currentAgent).toBe("general-agent");
    expect(reply.reply).toContain("Ik ben de inspectie-assistent.");
    expect(rulesOf("general-agent").at(-1)).toBe("fallback");
  });
});
