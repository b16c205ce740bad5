import { createHandoffTool } from "@trellis/agents";
import { tool, userMessage } from "@trellis/models";
import { describe, expect, it } from "vitest";
import { createOfflineModels } from "./offline-models.js";
import { reportFacts } from "./report-facts.js";

const stub = (name: string) =>
  tool({ name, description: name, parameters: { type: "object", properties: {} }, fn: () => "" });
const generalTools = [
  createHandoffTool("history-agent"),
  createHandoffTool("regulation-agent"),
  createHandoffTool("reporting-agent"),
  stub("update_user_settings"),
];

describe("reportFacts", () => {
  it("reads the company, KVK number and street address of a request", () => {
    expect(reportFacts("Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854")).toEqual({
      company_name: "Restaurant Bella Rosa",
      kvk_number: "92251854",
    });
    expect(reportFacts("Rapport voor Bakkerij De Gouden Korst (kvk 1234 5678) op Kerkstraat 5")).toEqual({
      company_name: "Bakkerij De Gouden Korst",
      kvk_number: "12345678",
      address: "Kerkstraat 5",
    });
    expect(reportFacts("Maak een inspectierapport")).toEqual({});
    expect(
      reportFacts("Vandaag Restaurant Bella Rosa (KVK 9225 1854) bezocht; hygiëne was in orde, geen overtredingen"),
    ).toEqual({
      company_name: "Restaurant Bella Rosa",
      kvk_number: "92251854",
      hygiene_ok: true,
      violations_found: false,
    });
    expect(reportFacts("De hygiëne was niet in orde en er zijn overtredingen geconstateerd")).toEqual({
      hygiene_ok: false,
      violations_found: true,
    });
  });
});

describe("the general agent's offline rules", () => {
  const cases: [string, string][] = [
    ["Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854", "transfer_to_reporting"],
    ["Wat is de inspectiehistorie van KVK 92251854?", "transfer_to_history"],
    ["Welke eisen gelden voor allergeneninformatie?", "transfer_to_regulation"],
    ["Hoe koud moet een koelcel zijn?", "transfer_to_regulation"],
    ["Mijn naam is Jan de Vries", "update_user_settings"],
  ];
  it.each(cases)("%s → %s", async (text, expected) => {
    const { "general-agent": general } = createOfflineModels();
    const reply = await general.invoke([userMessage(text)], { tools: generalTools });
    expect(reply.toolCalls?.map((c) => c.name)).toEqual([expected]);
  });

  it("answers greetings and unknown text with help, without tool calls", async () => {
    const { "general-agent": general } = createOfflineModels();
    for (const text of ["Hallo", "hoofdstraat 2, ja, nee"]) {
      const reply = await general.invoke([userMessage(text)], { tools: generalTools });
      expect(reply.toolCalls).toBeUndefined();
      expect(reply.content).toContain("Ik ben de inspectie-assistent.");
    }
  });
});
