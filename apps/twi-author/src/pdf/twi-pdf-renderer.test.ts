import { describe, expect, it } from "vitest";
import { createOfflineTwiModel } from "../offline/offline-model.js";
import { generateMessages } from "../prompts.js";
import { AI_LABEL } from "../state.js";
import { extractPdfText } from "../test/pdf-text.js";
import { HtmlPdfRenderer, type PdfMetadata } from "./twi-pdf-renderer.js";

const metadata: PdfMetadata = {
  conversationId: "conv-1",
  tenantId: "acme",
  model: "twi-offline-rules-1",
  generatedAt: "2025-03-01T09:00:00.000Z",
  revision: 1,
  approvedAt: "2025-03-01T09:30:00.000Z",
};

/** An English request: the offline model drafts the known job in Hungarian. */
async function solderingDraft(): Promise<string> {
  const reply = await createOfflineTwiModel().invoke(
    generateMessages({ mode: "new", request: "Write a TWI for hand soldering through-hole components" }),
  );
  return `${AI_LABEL}\n\n${reply.content}`;
}

describe("HtmlPdfRenderer", () => {
  it("renders a real PDF whose extracted text holds the title, ő/ű/é words and the ⚠ label", async () => {
    const bytes = await new HtmlPdfRenderer().render(await solderingDraft(), metadata, "anna.kovacs");
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe("%PDF-");
    const text = await extractPdfText(bytes);
    expect(text).toContain("Furatszerelt alkatrész kézi forrasztása"); // the title
    expect(text).toContain("⚠ AI által generált tartalom — emberi felülvizsgálat szükséges.");
    expect(text).toContain("BIZTONSÁGI ELŐÍRÁSOK"); // Ő
    expect(text).toContain("MINŐSÉGI ELLENŐRZÉS"); // Ő
    expect(text).toContain("Hőfokszabályzós forrasztópáka"); // ő
    expect(text).toContain("hűlés közben"); // ű
    expect(text).toContain("Védőszemüveget"); // ő, é
    expect(text).toContain("anna.kovacs");
    expect(text).toContain("2025-03-01T09:30:00.000Z");
  });

  it("embeds the font (no reliance on the 14 standard PDF fonts, which lack ő and ű)", async () => {
    const bytes = await new HtmlPdfRenderer().render(await solderingDraft(), metadata, "u1");
    const raw = Buffer.from(bytes).toString("latin1");
    expect(raw).toMatch(/\/FontFile2 \d+ 0 R/);
    expect(raw).toMatch(/\/BaseFont \/[A-Z]{6}\+DejaVuSans/);
    expect(raw).toContain("/ToUnicode");
  });

  it("prints a text that is not an instruction (an answer) as paragraphs, under the label", async () => {
    const html = await new HtmlPdfRenderer().html(
      `${AI_LABEL}\n\nA kulcspont az, amire figyelni kell.\n\nMásodik bekezdés: tűrés.`,
      metadata,
      "u1",
    );
    expect(html).toContain("A kulcspont az, amire figyelni kell.");
    expect(html).toContain("Második bekezdés: tűrés.");
    expect(html).not.toContain("LÉPÉSEK");
    expect(html).toMatch(/<p class="ai-label" style="[^"]*background-color: #fff3cd/); // the CSS file, inlined
  });

  it("escapes HTML in the draft", async () => {
    const html = await new HtmlPdfRenderer().html(`${AI_LABEL}\n\n<script>alert(1)</script>`, metadata, "<b>u</b>");
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toContain("<b>u</b>");
  });
});
