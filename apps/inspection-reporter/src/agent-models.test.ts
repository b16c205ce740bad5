// The real-provider path: the same graph and orchestrator on an OpenAI-protocol model (a local fake
// server that plays the LLM), configured from environment variables. No network beyond 127.0.0.1.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RuleChatModel } from "@trellis/models";
import { type FakeReply, type FakeRequest, startFakeOpenAiServer } from "@trellis/models/testing";
import { describe, expect, it } from "vitest";
import { agentModelsFromEnv } from "./agent-models.js";
import { openInspectionRuntime } from "./in-process.js";
import { createInspectionReporter } from "./inspection-reporter.js";
import { silentLogger } from "./orchestrator/logger.js";

interface WireMessage {
  role: string;
  content?: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string } }[];
}

/** Plays the LLM: the next step of the seed's workflow from the last message of each request. */
function playLlm(request: FakeRequest): FakeReply | string {
  const messages = request.body.messages as WireMessage[];
  const last = messages.at(-1) as WireMessage;
  const tools = (request.body.tools ?? []) as { function: { name: string } }[];
  if (last.role === "user") return { toolCalls: [{ name: "transfer_to_reporting", args: {} }] };
  const called = messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.id === last.tool_call_id)?.function.name;
  if (last.content?.startsWith("Error:")) return `Tool error: ${last.content}`;
  const result = () => JSON.parse(last.content ?? "{}") as Record<string, unknown>;
  switch (called) {
    case "transfer_to_reporting":
      if (!tools.some((t) => t.function.name === "request_clarification")) throw new Error("not the reporting agent");
      return {
        toolCalls: [
          { name: "start_inspection_report", args: { company_name: "Restaurant Bella Rosa", kvk_number: "92251854" } },
        ],
      };
    case "start_inspection_report":
      return { toolCalls: [{ name: "verify_inspection_data", args: { report_id: result().report_id } }] };
    case "verify_inspection_data":
      return { toolCalls: [{ name: "request_clarification", args: { questions: result().questions } }] };
    case "request_clarification": {
      const [address, hygiene, violations] = (last.content ?? "").split(",").map((s) => s.trim());
      const reportId = /(IR-\d{8}-[0-9a-f]{6})/.exec(JSON.stringify(messages))?.[1];
      const answers = [
        { field: "address", answer: address },
        { field: "hygiene_ok", answer: hygiene },
        { field: "violations_found", answer: violations },
      ];
      return { toolCalls: [{ name: "submit_verification_answers", args: { report_id: reportId, answers } }] };
    }
    case "submit_verification_answers":
      return { toolCalls: [{ name: "generate_final_report", args: { report_id: result().report_id } }] };
    case "generate_final_report":
      return `Het rapport is klaar.\n\n${String(result().markdown)}`;
    default:
      return "Kunt u dat herhalen?";
  }
}

describe("models from the environment", () => {
  it("runs offline on the Dutch rule models when no provider is configured", () => {
    const chosen = agentModelsFromEnv({});
    expect(chosen.label).toBe("offline");
    expect(chosen.models["reporting-agent"]).toBeInstanceOf(RuleChatModel);
    expect(() => agentModelsFromEnv({ INSPECTION_MODEL_PROVIDER: "openai" })).toThrow(/INSPECTION_MODEL/);
  });

  it("drives the clarification flow with a provider model configured by INSPECTION_MODEL_*", async () => {
    const llm = await startFakeOpenAiServer([], playLlm);
    const dir = mkdtempSync(join(tmpdir(), "inspection-provider-"));
    const env = {
      INSPECTION_MODEL_PROVIDER: "openai",
      INSPECTION_MODEL: "gpt-test",
      INSPECTION_MODEL_API_KEY: "sk-test",
      INSPECTION_MODEL_BASE_URL: llm.url,
      INSPECTION_MODEL_MAX_RETRIES: "0",
    };
    const app = await createInspectionReporter({ dataDir: dir, env, logger: silentLogger });
    const runtime = await openInspectionRuntime({ dbPath: join(dir, "threads.sqlite"), app });
    try {
      expect(app.modelLabel).toBe("openai/gpt-test");
      const asked = await runtime.orchestrator.processMessage(
        "p1",
        "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854",
      );
      expect(asked.status).toBe("clarification");
      expect(asked.reply).toContain("1. Wat is het adres van de inspectielocatie?");
      const done = await runtime.orchestrator.processMessage("p1", "Hoofdstraat 2, ja, nee");
      expect(done.resumed).toBe(true);
      expect(done.reply).toContain("# Inspectierapport Restaurant Bella Rosa");

      // The reporting agent's prompt carries the seed's Phase 2 instructions; only it has request_clarification.
      const reportingRequest = llm.requests.find((r) =>
        (r.body.tools as { function: { name: string } }[]).some((t) => t.function.name === "request_clarification"),
      );
      expect(reportingRequest?.body.messages[0].content).toContain(
        "Call request_clarification with the questions list to pause and wait for user input",
      );
      const generalTools = (llm.requests[0]?.body.tools ?? []) as { function: { name: string } }[];
      expect(generalTools.map((t) => t.function.name)).toEqual([
        "transfer_to_history",
        "transfer_to_regulation",
        "transfer_to_reporting",
        "update_user_settings",
      ]);
    } finally {
      await runtime.close();
      await app.close();
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
