/**
 * The seed's `generate_twi_pdf(content, metadata, user_id)`: an HTML template (Mustache, the
 * Jinja2 of this port) and a CSS file, rendered to a real PDF with an embedded Unicode font.
 *
 * Pipeline: Mustache fills `templates/twi-template.html`; juice inlines `templates/twi-style.css` into
 * `style` attributes; html-to-pdfmake turns the HTML (parsed by jsdom) into a pdfmake document;
 * pdfmake (on pdfkit) lays it out with DejaVu Sans from the `dejavu-fonts-ttf` package, embedded as a
 * subset with a ToUnicode map, so ő, ű, é and ⚠ print and extract correctly. Pure JavaScript: no
 * browser, no system fonts, no network.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import htmlToPdfmake from "html-to-pdfmake";
import { JSDOM } from "jsdom";
import juice from "juice";
import Mustache from "mustache";
import pdfmake from "pdfmake";
import { AI_LABEL } from "../state.js";
import { parseTwiText } from "../twi-document.js";

/**
 * What the PDF shows besides the content.
 *
 * @example
 * const meta: PdfMetadata = { conversationId: "c1", tenantId: "acme", model: "mistral-large-latest",
 *   generatedAt: "2025-01-01T10:00:00.000Z", revision: 1, approvedAt: "2025-01-01T11:00:00.000Z" };
 */
export interface PdfMetadata {
  conversationId: string;
  tenantId: string;
  model: string;
  generatedAt: string;
  revision: number;
  approvedAt: string;
}

/**
 * Renders an approved draft to PDF bytes.
 *
 * @example
 * const bytes = await renderer.render(state.draft, metadata, state.user_id);
 */
export interface PdfRenderer {
  render(content: string, metadata: PdfMetadata, userId: string): Promise<Uint8Array>;
}

const require = createRequire(import.meta.url);
/** `templates/` of this package, from `src/pdf/` and from `dist/pdf/` alike. */
const TEMPLATES = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "templates");

/** The DejaVu Sans files of the `dejavu-fonts-ttf` package. */
function dejaVuFiles(): Record<"normal" | "bold" | "italics" | "bolditalics", string> {
  const dir = join(dirname(require.resolve("dejavu-fonts-ttf/package.json")), "ttf");
  return {
    normal: join(dir, "DejaVuSans.ttf"),
    bold: join(dir, "DejaVuSans-Bold.ttf"),
    italics: join(dir, "DejaVuSans-Oblique.ttf"),
    bolditalics: join(dir, "DejaVuSans-BoldOblique.ttf"),
  };
}

/** U+FE0F asks for emoji presentation; DejaVu draws ⚠ as text, so the selector is dropped. */
function printable(text: string): string {
  return text.replace(/\uFE0F/g, "");
}

/**
 * The view the template receives: the parsed six sections, or the text as paragraphs when it is not
 * a TWI instruction (an answer to a question).
 *
 * @example
 * const view = templateView(draft, metadata, "u1"); view.document?.steps[0]?.number; // 1
 */
export function templateView(content: string, metadata: PdfMetadata, userId: string) {
  const body = content.startsWith(AI_LABEL) ? content.slice(AI_LABEL.length) : content;
  const doc = parseTwiText(body);
  const title = doc?.title || "TWI munkautasítás";
  return {
    aiLabel: printable(AI_LABEL),
    title: printable(title),
    userId,
    metadata,
    notes: (doc?.notes ?? []).map(printable),
    document: doc
      ? {
          ...doc,
          title: printable(doc.title),
          steps: doc.steps.map((s, i) => ({ ...s, number: i + 1 })),
        }
      : null,
    paragraphs: doc
      ? []
      : printable(body)
          .split(/\r?\n\s*\r?\n/)
          .map((p) => p.trim())
          .filter(Boolean),
  };
}

/**
 * The HTML/CSS renderer. Templates are read once; pdfmake's resource policies allow the font files
 * and nothing else (no URL, no other local file), so a draft cannot make the renderer fetch anything.
 *
 * @example
 * const renderer = new HtmlPdfRenderer();
 * const bytes = await renderer.render(draft, metadata, "u1");
 * new TextDecoder().decode(bytes.subarray(0, 5)); // "%PDF-"
 */
export class HtmlPdfRenderer implements PdfRenderer {
  #templates: Promise<{ html: string; css: string }> | undefined;
  readonly #window = new JSDOM("").window;

  /** The filled HTML with the CSS inlined: what the PDF is made from. */
  async html(content: string, metadata: PdfMetadata, userId: string): Promise<string> {
    this.#templates ??= Promise.all([
      readFile(join(TEMPLATES, "twi-template.html"), "utf8"),
      readFile(join(TEMPLATES, "twi-style.css"), "utf8"),
    ]).then(([html, css]) => ({ html, css }));
    const { html, css } = await this.#templates;
    return juice(Mustache.render(html, templateView(content, metadata, userId)), { extraCss: css });
  }

  async render(content: string, metadata: PdfMetadata, userId: string): Promise<Uint8Array> {
    const html = await this.html(content, metadata, userId);
    const fonts = dejaVuFiles();
    const allowed = new Set(Object.values(fonts));
    pdfmake.setFonts({ DejaVuSans: fonts });
    pdfmake.setUrlAccessPolicy(() => false);
    pdfmake.setLocalAccessPolicy((path: string) => allowed.has(path));
    const content_ = htmlToPdfmake(html, { window: this.#window, tableAutoSize: false });
    markSectionHeadings(content_);
    const title = templateView(content, metadata, userId).title;
    const doc = pdfmake.createPdf({
      info: {
        title,
        author: userId,
        subject: "TWI munkautasítás",
        creator: "Trellis twi-author",
        producer: "pdfmake",
        creationDate: new Date(metadata.approvedAt || metadata.generatedAt),
      },
      pageSize: "A4",
      pageMargins: [40, 40, 40, 50],
      defaultStyle: { font: "DejaVuSans", fontSize: 10, lineHeight: 1.15 },
      content: content_,
      // a section heading never ends a page alone: it moves to the next page with its content
      pageBreakBefore: (node: PageNode, nodes: { getFollowingNodesOnPage: () => PageNode[] }) =>
        node.headlineLevel === SECTION_HEADING && !hasContentBelow(node, nodes.getFollowingNodesOnPage()),
      footer: (page: number, pages: number) => ({
        text: `${title} — ${page}. / ${pages} oldal`,
        alignment: "center",
        fontSize: 7,
        color: "#777777",
        margin: [0, 15, 0, 0],
      }),
    });
    return new Uint8Array(await doc.getBuffer());
  }
}

/** What pdfmake's page-break check tells about a node. */
interface PageNode {
  headlineLevel?: number | undefined;
  text?: unknown;
  table?: unknown;
  ul?: unknown;
  ol?: unknown;
  startPosition?: { top: number } | undefined;
}

/** Whether something printable follows a node lower on its page (blank text and the footer do not count). */
function hasContentBelow(node: PageNode, following: readonly PageNode[]): boolean {
  const top = node.startPosition?.top ?? 0;
  return following.some(
    (n) =>
      (n.startPosition?.top ?? 0) > top &&
      (n.table !== undefined ||
        n.ul !== undefined ||
        n.ol !== undefined ||
        (typeof n.text === "string" && n.text.trim() !== "")),
  );
}

/** The `headlineLevel` pdfmake's page-break check sees on a section heading (`<h2>`). */
const SECTION_HEADING = 2;

/** Marks html-to-pdfmake's `<h2>` nodes as section headings, so a page break can keep them with their content. */
function markSectionHeadings(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) markSectionHeadings(child);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const n = node as { nodeName?: string; headlineLevel?: number; stack?: unknown; text?: unknown };
  if (n.nodeName === "H2") n.headlineLevel = SECTION_HEADING;
  if (n.stack) markSectionHeadings(n.stack);
  if (Array.isArray(n.text)) markSectionHeadings(n.text);
}
