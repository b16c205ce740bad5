import { messageText } from "@trellis/models";
import { describe, expect, it } from "vitest";
import { generateMessages, readGeneratePrompt } from "../prompts.js";
import { parseTwiText, renderTwiText } from "../twi-document.js";
import { applyFeedback } from "./feedback-rules.js";
import { findCatalogueJob } from "./offline-catalogue.js";
import { classifyOffline } from "./offline-intent.js";
import { ASK_BACK_HEADING, TO_COMPLETE, writeOffline } from "./offline-writer.js";
import { detectLanguage, parseRequest, parseStep } from "./request-parser.js";

describe("offline intent rules", () => {
  it.each([
    ["Írj TWI munkautasítást a raklap fóliázásáról", "generate_twi"],
    ["Készíts betanítási utasítást a szerszámcseréhez", "generate_twi"],
    ["Can you write a TWI for pallet wrapping?", "generate_twi"],
    ["Lépések: 1. nyissa ki 2. zárja be", "generate_twi"],
    ["Please edit my TWI: add goggles", "edit_twi"],
    ["Módosítsd a meglévő munkautasítást", "edit_twi"],
    ["Hogyan írjak TWI-t?", "question"],
    ["What is a key point?", "question"],
    ["Szia!", "unknown"],
    ["", "unknown"],
  ])("%s → %s", (message, intent) => {
    expect(classifyOffline(message)).toBe(intent);
  });
});

describe("request parsing", () => {
  it("reads steps with key points and reasons, tools and safety, in Hungarian", () => {
    const facts = parseRequest(
      "Írj TWI-t az M8-as csavarok meghúzásáról. Lépések: 1. Helyezze be a csavart (kézzel, ütközésig). 2. Húzza meg kattanásig, mert a túlhúzás elszakítja a menetet. Eszközök: nyomatékkulcs, 13-as dugókulcs. Védőkesztyű kötelező.",
    );
    expect(facts).toMatchObject({
      language: "hu",
      task: "az M8-as csavarok meghúzásáról",
      materials: ["Nyomatékkulcs.", "13-as dugókulcs."],
      safety: ["Védőkesztyű viselése kötelező."],
      steps: [
        { action: "Helyezze be a csavart.", keyPoints: ["kézzel", "ütközésig"], rationale: "" },
        { action: "Húzza meg kattanásig.", keyPoints: [], rationale: "A túlhúzás elszakítja a menetet." },
      ],
    });
  });

  it("reads English steps joined by 'then', with 'making sure' key points", () => {
    expect(detectLanguage("Write a TWI for the press")).toBe("en");
    const facts = parseRequest(
      "Write a TWI for the press. Clean the die, then insert the blank making sure it sits flat, then press the pedal",
    );
    expect(facts.steps.map((s) => s.action)).toEqual(["Clean the die.", "Insert the blank.", "Press the pedal."]);
    expect(facts.steps[1]?.keyPoints).toEqual(["it sits flat"]);
    expect(parseStep("Wipe the lens because dust scatters light").rationale).toBe("Dust scatters light.");
  });
});

describe("offline writer", () => {
  it("drafts a known job from an English request, fully in Hungarian", () => {
    const text = writeOffline({ mode: "new", request: "Write a TWI for measuring a shaft with a caliper" });
    const doc = parseTwiText(text);
    expect(doc?.title).toBe("Külső átmérő mérése digitális tolómérővel");
    expect(text).not.toContain(TO_COMPLETE);
    expect(findCatalogueJob("pre-start check of the machine")?.id).toBe("startup");
  });

  it("asks back when the job is unknown and no steps are given, naming what is missing", () => {
    const text = writeOffline({ mode: "new", request: "Írj egy TWI-t" });
    expect(text.split("\n")[0]).toBe(ASK_BACK_HEADING);
    expect(text).toContain("Melyik munkafolyamatról");
  });

  it("marks the gaps of a request with steps instead of inventing them", () => {
    const doc = parseTwiText(
      writeOffline({ mode: "new", request: "Írj TWI-t a címkézésről. Lépések: 1. Vegye el a címkét 2. Ragassza fel" }),
    );
    expect(doc?.steps[0]?.rationale).toContain(TO_COMPLETE);
    expect(doc?.materials[0]).toContain(TO_COMPLETE);
  });

  it("works feedback into the previous draft from the prompt, and reports what it could not place", () => {
    const previous = writeOffline({ mode: "new", request: "Write a TWI for pallet wrapping" });
    const prompt = generateMessages({
      mode: "new",
      request: "Write a TWI for pallet wrapping",
      previousDraft: previous,
      feedback:
        "Cím: Raklap fóliázása kézi adagolóval\n2. lépés kulcspont: a fólia vége legalább 20 cm\nTöröld az 5. lépést\nLegyen szebb",
      revision: 0,
    });
    const text = writeOffline(readGeneratePrompt(messageText(prompt[1])));
    const doc = parseTwiText(text);
    expect(doc?.title).toBe("Raklap fóliázása kézi adagolóval");
    expect(doc?.steps).toHaveLength(4);
    expect(doc?.steps[1]?.keyPoints).toContain("a fólia vége legalább 20 cm");
    expect(doc?.notes.join("\n")).toContain("„Legyen szebb”");
  });

  it("edits a pasted instruction (edit_twi)", () => {
    const existing = renderTwiText({
      title: "Régi",
      goal: "Cél",
      materials: ["A"],
      safety: ["B"],
      steps: [{ action: "Lépés", keyPoints: ["K"], rationale: "I" }],
      qualityChecks: ["Q"],
      notes: [],
    });
    const text = writeOffline({
      mode: "edit",
      request: `Módosítsd: Biztonság: Sisak kötelező\n${existing}`,
      existingInstruction: existing,
    });
    expect(parseTwiText(text)?.safety).toEqual(["B", "Sisak kötelező."]);
    expect(writeOffline({ mode: "edit", request: "Edit my TWI please" })).toContain(ASK_BACK_HEADING);
  });

  it("answers TWI questions and asks back on others", () => {
    expect(writeOffline({ mode: "question", request: "Mi a kulcspont?" })).toMatch(/^A kulcspont/);
    expect(writeOffline({ mode: "question", request: "Mennyi a raklap súlya?" })).toContain(ASK_BACK_HEADING);
  });

  it("free-text feedback goes to the section its words name", () => {
    const base = parseTwiText(writeOffline({ mode: "new", request: "Write a TWI for pallet wrapping" }));
    if (!base) throw new Error("no draft");
    const { doc, unapplied } = applyFeedback(base, "A vágáshoz védőszemüveg kell; mérje meg a rakat magasságát");
    expect(unapplied).toEqual([]);
    expect(doc.safety.at(-1)).toBe("A vágáshoz védőszemüveg kell.");
    expect(doc.qualityChecks.at(-1)).toBe("Mérje meg a rakat magasságát.");
  });
});
