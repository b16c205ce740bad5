import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchHeading, parseTwiText, renderTwiText, type TwiDocument } from "./twi-document.js";

/** Text a line may hold: letters (with Hungarian accents), digits, spaces and punctuation, no newline. */
const line = fc
  .array(fc.constantFrom(..."aábcdeéfghiíjklmnoóöőpqrstuúüűvwxyzAÁÉŐŰ0123456789 ,;()%-".split("")), {
    minLength: 1,
    maxLength: 40,
  })
  .map((cs) => cs.join("").trim())
  .filter(
    (s) =>
      s !== "" &&
      !/^[-\d(]/.test(s) &&
      matchHeading(s) === undefined &&
      !/^(kulcspont|indokl|rationale|reason|key point|lépés|step|miért)/i.test(s),
  );

const doc: fc.Arbitrary<TwiDocument> = fc.record({
  title: line,
  goal: line,
  materials: fc.array(line, { minLength: 1, maxLength: 4 }),
  safety: fc.array(line, { minLength: 1, maxLength: 4 }),
  steps: fc.array(
    fc.record({ action: line, keyPoints: fc.array(line, { minLength: 1, maxLength: 3 }), rationale: line }),
    {
      minLength: 1,
      maxLength: 6,
    },
  ),
  qualityChecks: fc.array(line, { minLength: 1, maxLength: 4 }),
  notes: fc.array(line, { maxLength: 2 }),
});

describe("TWI document text", () => {
  it("round-trips: parse(render(doc)) = doc", () => {
    fc.assert(
      fc.property(doc, (d) => {
        expect(parseTwiText(renderTwiText(d))).toEqual(d);
      }),
    );
  });

  it("reads a real model's Markdown", () => {
    const parsed = parseTwiText(
      [
        "⚠️ AI által generált tartalom — emberi felülvizsgálat szükséges.",
        "## 1. CÍM (Title)",
        "**Szerszámcsere**",
        "## 2. Cél",
        "Gyors csere.",
        "### 3. Szükséges anyagok és eszközök",
        "* Kulcs",
        "### 4. BIZTONSÁGI ELŐÍRÁSOK:",
        "- Áramtalanítás",
        "## 5. LÉPÉSEK",
        "**1. lépés:** Állítsa le a gépet",
        "   - **Kulcspontok:** vészleállító",
        "   - **Indoklás:** biztonság",
        "**2. lépés:** Cserélje a szerszámot",
        "## 6. MINŐSÉGI ELLENŐRZÉS",
        "- Próbadarab",
      ].join("\n"),
    );
    expect(parsed).toMatchObject({
      title: "Szerszámcsere",
      goal: "Gyors csere.",
      materials: ["Kulcs"],
      safety: ["Áramtalanítás"],
      steps: [
        { action: "Állítsa le a gépet", keyPoints: ["vészleállító"], rationale: "biztonság" },
        { action: "Cserélje a szerszámot", keyPoints: [], rationale: "" },
      ],
      qualityChecks: ["Próbadarab"],
      notes: [],
    });
  });

  it("is not an instruction without most of the sections", () => {
    expect(parseTwiText("KIEGÉSZÍTŐ INFORMÁCIÓ SZÜKSÉGES\n1. Melyik munkafolyamat?")).toBeUndefined();
    expect(matchHeading("Cél elérése után")).toBeUndefined();
    expect(matchHeading("2. CÉL: gyors csere")).toEqual({ key: "goal", rest: "gyors csere" });
  });
});
