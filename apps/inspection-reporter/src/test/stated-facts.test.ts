// Issue 36, inspection-reporter findings 1–3, through AG-UI (the app's WebSocket): the report holds the
// facts as the inspector said them (the company without the words around it, the address with its
// city, a stated violation with its description, whatever the completeness score); one sentence that
// answers several questions is split and used; "ja, <description>" keeps the description; a reply
// during the pause that is no answer ("wacht even", "wat bedoel je?") is asked again, not stored.
import { describe, expect, it } from "vitest";
import { WsFrontend } from "./ag-ui-client.js";
import { servedInspectionApp } from "./served-app.js";

const app = servedInspectionApp("inspection-stated-facts-");

async function conversation(): Promise<WsFrontend> {
  return WsFrontend.connect(app.server.wsUrl);
}

describe("the report says what the inspector said (AG-UI WebSocket)", () => {
  it("company, street and city as said; a stated violation reaches the report with its temperature", async () => {
    const frontend = await conversation();
    const turn = await frontend.say(
      "Graag een rapport van mijn inspectie bij Bakkerij De Gouden Korenaar aan de Molenweg 14 in Zwolle: " +
        "de hygiëne was in orde, maar er was één overtreding: de koelkast was 9 graden.",
    );
    const report = turn.texts.at(-1) ?? "";
    expect(report).toContain("# Inspectierapport Bakkerij De Gouden Korenaar");
    expect(report).toContain("- Bedrijfsnaam: Bakkerij De Gouden Korenaar");
    expect(report).toContain("- Adres: Molenweg 14, Zwolle");
    expect(report).toContain("- Overtredingen geconstateerd: ja");
    expect(report).toContain("- Toelichting overtredingen: de koelkast was 9 graden");
    expect(report).toContain("Voldoet niet");
    expect(report).not.toMatch(/Overtredingen geconstateerd: _niet vastgesteld_/);
    frontend.close();
  });

  it("a violation stated without what it was is asked for before the report, not dropped", async () => {
    const frontend = await conversation();
    const asked = await frontend.say(
      "Rapport voor Slagerij Van der Berg, KVK 2345 6789, Dorpsstraat 3 te Ede. Hygiëne prima, wel een overtreding gezien.",
    );
    expect(asked.texts.at(-1)).toBe("1. Welke overtredingen zijn er geconstateerd?");
    const done = await frontend.say("ja, de vriezer stond op -12 graden");
    const report = done.texts.at(-1) ?? "";
    expect(report).toContain("- Toelichting overtredingen: de vriezer stond op -12 graden");
    expect(report).toContain("- KVK-nummer: 23456789");
    frontend.close();
  });

  it("one sentence answering several questions is split and used; 'ja, <description>' keeps the description", async () => {
    const frontend = await conversation();
    const asked = await frontend.say(
      "Maak een inspectierapport voor Lunchroom Het Zonnetje aan de Kerkstraat 8 in Deventer",
    );
    expect(asked.texts.at(-1)).toBe(
      "1. Wat is het KVK-nummer van het bedrijf (8 cijfers)?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?",
    );
    const done = await frontend.say("KVK is 12345678. Hygiëne was goed. Ja, schimmel in de opslagruimte");
    const report = done.texts.at(-1) ?? "";
    expect(report).toContain("- KVK-nummer: 12345678");
    expect(report).toContain("- Hygiëne in orde: ja");
    expect(report).toContain("- Overtredingen geconstateerd: ja");
    expect(report).toContain("- Toelichting overtredingen: schimmel in de opslagruimte");
    expect(report).not.toContain("niet bruikbaar");
    frontend.close();
  });

  it.each([
    ["Wacht even", /^Geen probleem, neem de tijd; ik heb niets genoteerd\./],
    ["wat bedoel je?", /^«wat bedoel je\?» is geen antwoord, dus ik heb niets genoteerd\./],
    ["Hoe bedoelt u dat?", /is geen antwoord/],
  ])("%s during the pause is asked again, not stored as an answer", async (reply, expected) => {
    const frontend = await conversation();
    const first = await frontend.say("Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854");
    const questions = first.texts.at(-1) ?? "";
    expect(questions).toBe(
      "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?",
    );
    const again = await frontend.say(reply);
    const text = again.texts.at(-1) ?? "";
    expect(text).toMatch(expected);
    expect(text.endsWith(questions)).toBe(true);
    expect(again.finished).toMatchObject({ result: { awaiting_clarification: true } });
    const done = await frontend.say("Hoofdstraat 2, ja, nee");
    const report = done.texts.at(-1) ?? "";
    expect(report).toContain("- Adres: Hoofdstraat 2");
    expect(report).not.toContain(reply);
    frontend.close();
  });
});
