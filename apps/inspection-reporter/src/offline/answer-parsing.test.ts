import { describe, expect, it } from "vitest";
import type { ClarificationQuestion } from "../agents/request-clarification.js";
import { mapAnswers, splitResponse } from "./answer-parsing.js";

const address: ClarificationQuestion = { question: "Adres?", field: "address", importance: "critical" };
const hygiene: ClarificationQuestion = { question: "Hygiëne?", field: "hygiene_ok", options: ["ja", "nee"] };
const violations: ClarificationQuestion = {
  question: "Overtredingen?",
  field: "violations_found",
  options: ["ja", "nee"],
};
const company: ClarificationQuestion = { question: "Naam?", field: "company_name" };
const kvk: ClarificationQuestion = { question: "KVK?", field: "kvk_number" };

describe("splitResponse", () => {
  it("splits on commas and semicolons, not inside decimals", () => {
    expect(splitResponse("hoofdstraat 2, ja, nee")).toEqual(["hoofdstraat 2", "ja", "nee"]);
    expect(splitResponse("koelcel 7,5 graden; nee")).toEqual(["koelcel 7,5 graden", "nee"]);
  });
  it("prefers numbered lines, then lines", () => {
    expect(splitResponse("1. Kerkstraat 5, Utrecht\n2) ja\n3: nee")).toEqual(["Kerkstraat 5, Utrecht", "ja", "nee"]);
    expect(splitResponse("Kerkstraat 5\nja")).toEqual(["Kerkstraat 5", "ja"]);
  });
});

describe("mapAnswers", () => {
  it("maps the seed's reply to the three questions in order", () => {
    expect(mapAnswers([address, hygiene, violations], "hoofdstraat 2, ja, nee")).toEqual([
      { field: "address", answer: "hoofdstraat 2" },
      { field: "hygiene_ok", answer: "ja" },
      { field: "violations_found", answer: "nee" },
    ]);
  });
  it("keeps an address with a comma together when the next question cannot take the extra part", () => {
    expect(mapAnswers([address, hygiene], "Kerkstraat 5, Utrecht, ja")).toEqual([
      { field: "address", answer: "Kerkstraat 5, Utrecht" },
      { field: "hygiene_ok", answer: "ja" },
    ]);
    expect(mapAnswers([company, kvk, address], "Bakkerij De Gouden Korst, 12345678, Kerkstraat 5, Utrecht")).toEqual([
      { field: "company_name", answer: "Bakkerij De Gouden Korst" },
      { field: "kvk_number", answer: "12345678" },
      { field: "address", answer: "Kerkstraat 5, Utrecht" },
    ]);
  });
  it("gives a single question the whole reply, and leaves unanswered questions out", () => {
    expect(mapAnswers([{ question: "Welke?", field: "violation_details" }], "koelcel 9 graden, geen schema")).toEqual([
      { field: "violation_details", answer: "koelcel 9 graden, geen schema" },
    ]);
    expect(mapAnswers([address, hygiene, violations], "Dorpsplein 14")).toEqual([
      { field: "address", answer: "Dorpsplein 14" },
    ]);
    expect(mapAnswers([address], "   ")).toEqual([]);
  });
  it("reads a JSON object of answers by field", () => {
    expect(mapAnswers([address, hygiene], '{"hygiene_ok": true, "address": "Markt 1"}')).toEqual([
      { field: "address", answer: "Markt 1" },
      { field: "hygiene_ok", answer: "true" },
    ]);
  });
});
