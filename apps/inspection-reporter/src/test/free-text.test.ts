// Issue 24, finding 7: facts the inspector wrote in the request are not asked for again. Through /chat
// with the offline models: company name, KVK number, address, hygiene and violations stated in free text
// fill the draft; only what was not stated is asked.
import { describe, expect, it } from "vitest";
import { servedInspectionApp } from "./served-app.js";

const app = servedInspectionApp("inspection-free-text-");

async function chat(threadId: string, message: string): Promise<{ status: string; reply: string }> {
  const res = await fetch(`${app.server.url}/apps/inspection-reporter/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ thread_id: threadId, message }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string; reply: string };
}

describe("facts in the inspector's own words", () => {
  it("are taken from the request: only what was not stated is asked", async () => {
    const asked = await chat(
      "free-1",
      "Maak een inspectierapport. Vandaag Restaurant Bella Rosa (KVK 9225 1854) bezocht; de hygiëne was in orde.",
    );
    expect(asked).toMatchObject({
      status: "clarification",
      reply: "1. Wat is het adres van de inspectielocatie?\n2. Zijn er overtredingen geconstateerd?",
    });
    const done = await chat("free-1", "Hoofdstraat 2, nee");
    expect(done.reply).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
    expect(done.reply).toContain("# Inspectierapport Restaurant Bella Rosa");
    expect(done.reply).toContain("- Hygiëne in orde: ja");
    expect(done.reply).toContain("- Overtredingen geconstateerd: nee");
  });

  it("make the report at once when everything was stated, with nothing asked", async () => {
    const done = await chat(
      "free-3",
      "Inspectierapport voor Restaurant Bella Rosa (KVK 9225 1854), Hoofdstraat 2. De hygiëne was in orde, geen overtredingen.",
    );
    expect(done.status).toBe("answered");
    expect(done.reply).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
    expect(done.reply).toContain("- KVK-nummer: 92251854");
    expect(done.reply).toContain("- Adres: Hoofdstraat 2");
  });

  it("reads hygiene that was not in order and violations that were found", async () => {
    const asked = await chat(
      "free-2",
      "Rapport voor Bakkerij De Gouden Korst, KVK 12345678, Kerkstraat 5: hygiëne niet in orde, overtredingen geconstateerd.",
    );
    // only the description of the violations is missing
    expect(asked).toMatchObject({ status: "clarification", reply: "1. Welke overtredingen zijn er geconstateerd?" });
    const done = await chat("free-2", "Koelcel te warm (9 °C)");
    expect(done.reply).toContain("Voldoet niet — herinspectie aanbevolen");
    expect(done.reply).toContain("- Hygiëne in orde: nee");
    expect(done.reply).toContain("- Toelichting overtredingen: Koelcel te warm (9 °C)");
  });
});
