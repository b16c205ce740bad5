/**
 * Issue 22, twi-author finding 6 (the PDF): the steps table's header row and the "5. LÉPÉSEK" heading
 * are never left alone at the foot of a page — whatever the length of the sections before them, the
 * page that shows the header also shows the first step.
 */
import { describe, expect, it } from "vitest";
import { AI_LABEL } from "../state.js";
import { renderTwiText } from "../twi-document.js";
import { HtmlPdfRenderer, type PdfMetadata } from "./twi-pdf-renderer.js";

const metadata: PdfMetadata = {
  conversationId: "conv-breaks",
  tenantId: "acme",
  model: "twi-offline-rules-1",
  generatedAt: "2025-03-01T09:00:00.000Z",
  revision: 0,
  approvedAt: "2025-03-01T09:30:00.000Z",
};

async function pagesOf(bytes: Uint8Array): Promise<string[]> {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const pdf = await pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false })
    .promise;
  const pages: string[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    pages.push(content.items.map((i) => ("str" in i ? i.str : "")).join(" "));
  }
  await pdf.destroy();
  return pages;
}

function draft(safetyLines: number): string {
  return `${AI_LABEL}\n\n${renderTwiText({
    title: "Raklap kézi fóliázása",
    goal: "A raklap rakománya szállítás közben ne mozduljon el.",
    materials: ["Nyújtófólia", "Fóliaadagoló"],
    safety: Array.from({ length: safetyLines }, (_, i) => `Biztonsági előírás ${i + 1}: a munkaterület legyen szabad.`),
    steps: [
      {
        action: "Rögzítse a fólia végét a raklap sarkához.",
        keyPoints: ["alsó sarok"],
        rationale: "Így nem csúszik le.",
      },
      { action: "Tekerje körbe a raklapot.", keyPoints: ["50% átfedés"], rationale: "Így tart a rakomány." },
    ],
    qualityChecks: ["A fólia sehol nem szakadt."],
    notes: [],
  })}`;
}

describe("the steps table keeps its header with the first step", () => {
  it("for every length of the sections before it, the header's page also holds the heading and step 1", async () => {
    const renderer = new HtmlPdfRenderer();
    let broke = false;
    for (let n = 14; n <= 40; n++) {
      const pages = await pagesOf(await renderer.render(draft(n), metadata, "u1"));
      const headerPage = pages.findIndex((p) => p.includes("Fő lépés"));
      expect(headerPage, `safety lines: ${n}`).toBeGreaterThanOrEqual(0);
      expect(pages[headerPage], `safety lines: ${n}`).toContain("Rögzítse a fólia végét");
      expect(pages[headerPage], `safety lines: ${n}`).toContain("5. LÉPÉSEK");
      if (headerPage > 0) broke = true;
    }
    // the range of lengths pushes the table over a page break at least once
    expect(broke).toBe(true);
  });
});
