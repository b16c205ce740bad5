// The shipped MCP servers, started as processes and called through MCP clients.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpServers, startMcpServers } from "./mcp-servers.js";

let dir: string;
let mcp: McpServers;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspection-mcp-"));
  mcp = await startMcpServers({ dataDir: dir });
});
afterAll(async () => {
  await mcp.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(server: keyof McpServers["clients"], name: string, args: Record<string, unknown>) {
  const result = await mcp.clients[server].callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
  return { isError: result.isError === true, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

describe("MCP servers over stdio", () => {
  it("offer their tools with JSON schemas", () => {
    const names = (s: keyof McpServers["tools"]) => mcp.tools[s].map((t) => t.name).sort();
    expect(names("inspection")).toEqual([
      "generate_final_report",
      "start_inspection_report",
      "submit_verification_answers",
      "verify_inspection_data",
    ]);
    expect(names("regulation")).toEqual(["get_regulation", "search_regulations"]);
    expect(names("history")).toEqual(["get_inspection_history", "search_companies"]);
    const submit = mcp.tools.inspection.find((t) => t.name === "submit_verification_answers");
    expect(submit?.parameters).toMatchObject({ type: "object", required: ["report_id", "answers"] });
  });

  it("inspection: verify returns questions (question, field, importance, options), completion and confidence", async () => {
    const started = (
      await call("inspection", "start_inspection_report", {
        company_name: "Restaurant Bella Rosa",
        kvk_number: "92251854",
      })
    ).json();
    expect(started).toMatchObject({
      completion_percentage: 40,
      missing_fields: ["address", "hygiene_ok", "violations_found"],
    });
    const reportId = started.report_id as string;
    expect(reportId).toMatch(/^IR-\d{8}-[0-9a-f]{6}$/);
    const verified = (await call("inspection", "verify_inspection_data", { report_id: reportId })).json();
    expect(verified).toMatchObject({ report_id: reportId, completion_percentage: 40, overall_confidence: 0.9 });
    expect(verified.questions).toEqual([
      { question: "Wat is het adres van de inspectielocatie?", field: "address", importance: "critical" },
      { question: "Was de hygiëne in orde?", field: "hygiene_ok", importance: "high", options: ["ja", "nee"] },
      {
        question: "Zijn er overtredingen geconstateerd?",
        field: "violations_found",
        importance: "high",
        options: ["ja", "nee"],
      },
    ]);

    const submitted = (
      await call("inspection", "submit_verification_answers", {
        report_id: reportId,
        answers: [
          { field: "address", answer: "Hoofdstraat 2" },
          { field: "hygiene_ok", answer: "misschien" },
          { field: "violations_found", answer: "ja" },
        ],
      })
    ).json();
    expect(submitted).toMatchObject({
      accepted: ["address", "violations_found"],
      rejected: [{ field: "hygiene_ok", reason: 'antwoord "misschien" niet bruikbaar' }],
      missing_fields: ["hygiene_ok", "violation_details"],
    });
    // Violations without a description lower the confidence below the threshold.
    expect(submitted.overall_confidence).toBeLessThan(0.7);

    const tooEarly = await call("inspection", "generate_final_report", { report_id: "IR-20000101-000000" });
    expect(tooEarly.isError).toBe(true);
    expect(tooEarly.text).toContain("bestaat niet");
  });

  it("inspection: a place name without a house number is asked again, and 'ja' confirms it", async () => {
    const id = (
      await call("inspection", "start_inspection_report", {
        company_name: "Zaak X",
        kvk_number: "12345678",
        address: "Utrecht",
      })
    ).json().report_id as string;
    const questions = (await call("inspection", "verify_inspection_data", { report_id: id })).json().questions as {
      field: string;
      question: string;
    }[];
    expect(questions[0]).toMatchObject({ field: "address" });
    expect(questions[0]?.question).toContain('Ik heb "Utrecht" genoteerd; klopt dat?');
    await call("inspection", "submit_verification_answers", {
      report_id: id,
      answers: [{ field: "address", answer: "ja" }],
    });
    const again = (await call("inspection", "verify_inspection_data", { report_id: id })).json().questions as {
      field: string;
    }[];
    expect(again.map((q) => q.field)).toEqual(["hygiene_ok", "violations_found"]);
  });

  it("regulation: searches the sample corpus in Dutch and says it is sample content", async () => {
    const cooling = (
      await call("regulation", "search_regulations", { query: "Hoe koud moet de koelcel zijn?" })
    ).json();
    const results = cooling.results as { id: string }[];
    expect(results[0]?.id).toBe("VW-KOEL-01");
    expect(cooling.disclaimer).toMatch(/geen officiële wettekst/);
    const allergens = (await call("regulation", "search_regulations", { query: "allergenen op de menukaart" })).json();
    expect((allergens.results as { id: string }[])[0]?.id).toBe("ALL-01");
    const none = (await call("regulation", "search_regulations", { query: "xyzzy" })).json();
    expect(none.results).toEqual([]);
    expect((await call("regulation", "get_regulation", { id: "haccp-01" })).json()).toMatchObject({ id: "HACCP-01" });
    expect((await call("regulation", "get_regulation", { id: "NOPE" })).isError).toBe(true);
  });

  it("history: past inspections by KVK number, newest first; companies by name", async () => {
    const bella = (await call("history", "get_inspection_history", { kvk_number: "9225 1854" })).json();
    expect(bella).toMatchObject({ found: true, name: "Restaurant Bella Rosa" });
    expect((bella.inspections as { date: string }[]).map((i) => i.date)).toEqual([
      "2025-01-20",
      "2024-05-02",
      "2024-03-12",
    ]);
    expect((await call("history", "get_inspection_history", { kvk_number: "00000000" })).json()).toMatchObject({
      found: false,
    });
    const found = (await call("history", "search_companies", { name: "hoekje" })).json();
    expect(found.matches).toEqual([
      { kvk_number: "87654321", name: "Snackbar 't Hoekje", address: "Dorpsplein 14, 9711 AB Groningen" },
    ]);
  });
});
