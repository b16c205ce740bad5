// Issue 24, finding 4: the report never claims what the inspector did not state. Through /chat: a
// fact the verdict rests on that is missing gives no verdict and is named as missing; a stopped draft
// is finished later instead of replaced by a blank one; a rejected answer is asked again with the
// reason; numbers are printed the Dutch way.
import { describe, expect, it } from "vitest";
import { servedInspectionApp } from "./served-app.js";

const ASK = "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854";

const app = servedInspectionApp("inspection-honesty-");

async function chat(threadId: string, message: string): Promise<{ status: string; reply: string }> {
  const res = await fetch(`${app.server.url}/apps/inspection-reporter/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ thread_id: threadId, message }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string; reply: string };
}

const reportIdOf = (text: string) => /IR-\d{8}-[0-9a-f]{6}/.exec(text)?.[0];

describe("the report through /chat", () => {
  it("gives no verdict when whether there were violations was not stated, names it as missing, and can be completed", async () => {
    await chat("unknown-violations", ASK);
    const report = await chat("unknown-violations", "hoofdstraat 2, ja, weet ik niet");
    expect(report.status).toBe("answered");
    expect(report.reply).not.toContain("Voldoet niet");
    expect(report.reply).not.toContain("herinspectie aanbevolen");
    expect(report.reply).toContain("Geen oordeel — niet vastgesteld: Overtredingen geconstateerd");
    expect(report.reply).toContain("- Overtredingen geconstateerd: _niet vastgesteld_");
    expect(report.reply).toContain("Ontbrekende gegevens: Overtredingen geconstateerd.");
    const id = reportIdOf(report.reply);

    const again = await chat("unknown-violations", "Maak het rapport af");
    expect(again).toMatchObject({
      status: "clarification",
      reply:
        '1. Zijn er overtredingen geconstateerd? (Antwoord "weet ik niet" niet bruikbaar; antwoord met ja of nee.)',
    });
    const done = await chat("unknown-violations", "nee");
    expect(done.reply).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
    expect(reportIdOf(done.reply)).toBe(id);
  });

  it("finishes a stopped draft when asked to, instead of starting a blank one", async () => {
    await chat("stopped", ASK);
    const stopped = await chat("stopped", "stop");
    const id = reportIdOf(stopped.reply);
    expect(id).toBeDefined();
    expect(stopped.reply).toContain("later om het rapport af te maken");

    const resumed = await chat("stopped", "Maak het rapport af");
    expect(resumed.status).toBe("clarification");
    // the draft still knows the company and KVK number: only the three open questions come back
    expect(resumed.reply).toBe(
      "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?",
    );
    const done = await chat("stopped", "hoofdstraat 2, ja, nee");
    expect(done.reply).toContain("# Inspectierapport Restaurant Bella Rosa");
    expect(done.reply).toContain("- KVK-nummer: 92251854");
    expect(reportIdOf(done.reply)).toBe(id);
  });

  it("asks a rejected answer again with the reason, and prints numbers the Dutch way", async () => {
    await chat("rejected", ASK);
    const asked = await chat("rejected", "hoofdstraat 2, misschien, soms");
    expect(asked.status).toBe("clarification");
    expect(asked.reply).toBe(
      '1. Was de hygiëne in orde? (Antwoord "misschien" niet bruikbaar; antwoord met ja of nee.)\n' +
        '2. Zijn er overtredingen geconstateerd? (Antwoord "soms" niet bruikbaar; antwoord met ja of nee.)',
    );
    const done = await chat("rejected", "ja, nee");
    expect(done.reply).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
    expect(done.reply).toMatch(/betrouwbaarheid 0,\d\d,/);
    expect(done.reply).not.toMatch(/betrouwbaarheid 0\.\d/);
  });
});

describe("a conversation that reaches the reporting agent's round cap", () => {
  it("ends in Dutch and keeps the draft (issue 24, finding 4: the 40-round cap message was English)", async () => {
    await chat("cap", ASK);
    let last = { status: "clarification", reply: "" };
    let rounds = 0;
    // every answer unusable: the agent asks again, three model turns a round, until its cap
    while (last.status === "clarification") {
      last = await chat("cap", "?, ?, ?");
      rounds += 1;
      expect(rounds).toBeLessThan(20);
    }
    expect(last.reply).toContain("Ik stop hier: na 39 stappen is er nog geen volledig antwoord.");
    expect(last.reply).not.toMatch(/I stopped after|tool rounds/);
    const resumed = await chat("cap", "Maak het rapport af");
    expect(resumed.status).toBe("clarification");
  });
});
