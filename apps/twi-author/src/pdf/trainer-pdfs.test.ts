/**
 * Issue 35: the PDFs of five varied requests, published through the Agent Server API (review, a
 * revision where the request left gaps, final approval) and fetched by their signed links, are kept in
 * `test-artifacts/twi-author/pdfs/` (gitignored) with each page rendered to PNG by `pdftoppm`, so a
 * person can look at them as a factory trainer would. Each PDF's text holds its title and steps, and no
 * `[KIEGÉSZÍTENDŐ]` gap and no reviewer-log line; no page ends with a section heading whose content went
 * to the next page (seen when looking at the PNGs: "6. MINŐSÉGI ELLENŐRZÉS" alone at a page's foot). Needs `pdftoppm` (poppler-utils): skipped loudly
 * without it, failing under CI=true.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { requireService } from "@trellis/checkpoint/testing";
import { describe, expect, it } from "vitest";
import type { AgentState } from "../state.js";
import { apiDoor } from "../test/api-door.js";
import { extractPdfText } from "../test/pdf-text.js";
import { PALLET_REQUEST } from "../test/test-app.js";
import { parseTwiText } from "../twi-document.js";

const pdftoppmHere = await requireService(
  "pdftoppm",
  async () => {
    execFileSync("pdftoppm", ["-v"], { stdio: "ignore" });
  },
  { hint: "install poppler-utils (apt-get install -y poppler-utils)" },
);

const ARTIFACTS = fileURLToPath(new URL("../../../../test-artifacts/twi-author/pdfs/", import.meta.url));
const t = apiDoor("twi-trainer-pdfs-");

/** A request and the revisions a reviewer sends before approving (to fill what the request left open). */
const CASES: Array<{ name: string; request: string; revisions?: string[]; title: string; stepText: string }> = [
  { name: "1-pallet", request: PALLET_REQUEST, title: "Raklap kézi stretch-fóliázása", stepText: "rakat" },
  {
    name: "2-torque-english",
    request: "Torque-wrench bolting job for the gearbox cover",
    revisions: ["A 4. lépés kulcspont: a fedél csavarjait 25 Nm-re húzza"],
    title: "Csavarkötés meghúzása nyomatékkulccsal",
    stepText: "25 Nm-re",
  },
  {
    name: "3-nozzle-steps",
    request: [
      "Írj TWI-t a hegesztőpisztoly fúvókájának cseréjéről.",
      "Eszközök: fogó, új fúvóka.",
      "Biztonság: hőálló kesztyű viselése kötelező.",
      "Lépések: 1. Kapcsolja ki a gépet (a főkapcsolóval), mert áram alatt veszélyes",
      "2. Csavarja le a régi fúvókát (a(z) hőálló kesztyűben), mert forró lehet",
      "3. Tegye fel az újat (kézzel, ütközésig), mert a túlhúzás tönkreteszi a menetet.",
      "Ellenőrzés: a fúvóka nem mozog.",
    ].join(" "),
    title: "Hegesztőpisztoly fúvókájának cseréje",
    stepText: "Csavarja le a régi fúvókát",
  },
  {
    name: "4-unknown-job-answered",
    request: "A festőkabin heti takarítása",
    revisions: [
      [
        "Lépések:",
        "1. Kapcsolja ki az elszívást (a vezérlőpulton), mert a ventilátor beszívhatja a rongyot",
        "2. Kaparja le a festéket a falról (műanyag kaparóval), mert a fém megsérti a bevonatot",
        "3. Cserélje ki a padlószűrőt (a régit zsákba téve), mert a telített szűrő rontja a szívást",
        "Eszközök: műanyag kaparó, padlószűrő, hulladékzsák",
        "Biztonság: légzésvédő maszk és kesztyű viselése kötelező",
        "Ellenőrzés: a falon nem marad festékréteg",
      ].join("\n"),
    ],
    title: "Festőkabin heti takarítása",
    stepText: "Kaparja le a festéket",
  },
  {
    name: "5-twelve-steps-filled",
    request: `Írj TWI-t a gépsor műszakváltásáról. Lépések:\n${[
      "Nézze meg a 2. kijelzőn a darabszámot (a műszaknapló szerint)",
      "Állítsa le a szalagot (a zöld gombbal), mert mozgó szalagnál nem lehet átadni",
      "Ürítse ki a 3. gyűjtőládát",
      "Törölje le a munkaasztalt (alkoholos kendővel), mert a por rátapad a termékre",
      "Ellenőrizze a szerszámokat (mind a helyén legyen), mert a hiányzó szerszám balesetet okozhat",
      "Írja be a selejtet a naplóba (a 4. oszlopba), mert a minőségügy ebből dolgozik",
      "Adja át a kulcsot (személyesen), mert a kulcs nem maradhat őrizetlenül",
      "Mondja el a nyitott hibákat (a következő műszakvezetőnek), mert ő folytatja",
      "Írassa alá az átadás-átvételt (mindkét féllel), mert ez igazolja az átadást",
      "Kapcsolja be a szalagot (a zöld gombbal), mert az új műszak így kezd",
      "Figyelje az első 10 darabot (a 2. ellenőrző ponton), mert az indulás utáni hibák itt jönnek elő",
      "Jelezze a kész átadást (a rádión), mert a diszpécser várja",
    ]
      .map((s, i) => `${i + 1}. ${s}`)
      .join("\n")}`,
    revisions: [
      [
        "1. lépés indoklás: a darabszám az átadás alapja",
        "3. lépés kulcspont: a ládát a kijelölt helyre vigye",
        "3. lépés indoklás: a teli láda akadályozza a következő műszakot",
        "Eszközök: alkoholos kendő, műszaknapló, rádió",
        "Biztonság: a szalag mozgó részeihez csak leállítás után nyúljon",
        "Ellenőrzés: az átadás-átvételi lapot mindkét fél aláírta",
      ].join("\n"),
    ],
    title: "Gépsor műszakváltása",
    stepText: "Jelezze a kész átadást",
  },
];

async function run(threadId: string, body: Record<string, unknown>): Promise<AgentState> {
  const res = await t.api(`/threads/${threadId}/runs/wait`, { assistant_id: "twi-author", ...body });
  expect(res.status).toBe(200);
  return res.json as unknown as AgentState;
}

describe.skipIf(!pdftoppmHere)("five published TWI PDFs, rendered to PNG for a trainer to look at", () => {
  it.each(CASES)("$name: published, rendered, no gaps and no reviewer log in the PDF", async (c) => {
    const threadId = String((await t.api("/threads", {})).json.thread_id);
    let state = await run(threadId, { input: { user_id: "u", tenant_id: "acme", channel: "cli", message: c.request } });
    for (const feedback of c.revisions ?? []) {
      state = await run(threadId, {
        command: { update: { status: "revision_requested", revision_feedback: feedback } },
      });
    }
    expect(parseTwiText(String(state.draft))?.title).toBe(c.title);
    await run(threadId, { command: { update: { status: "approved" } } });
    const done = await run(threadId, {
      command: { update: { status: "approved", approval_timestamp: "2026-11-28T12:00:00.000Z" } },
    });
    expect(done.status).toBe("completed");
    const url = new URL(String(done.pdf_url));
    const res = await fetch(`${t.door.url}${url.pathname}${url.search}`);
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());

    const dir = `${ARTIFACTS}${c.name}/`;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}twi.pdf`, bytes);
    execFileSync("pdftoppm", ["-png", "-r", "80", `${dir}twi.pdf`, `${dir}page`]);
    const pages = readdirSync(dir).filter((f) => /^page-\d+\.png$/.test(f));
    expect(pages.length).toBeGreaterThan(0);

    // no page ends with a section heading whose content is on the next page
    pages.forEach((_page, i) => {
      const pageText = execFileSync(
        "pdftotext",
        ["-layout", "-f", `${i + 1}`, "-l", `${i + 1}`, `${dir}twi.pdf`, "-"],
        {
          encoding: "utf8",
        },
      );
      const lines = pageText
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "" && !/\d+\. \/ \d+ oldal$/.test(l));
      expect(lines.at(-1) ?? "").not.toMatch(/^\d\. [A-ZÁÉÍÓÖŐÚÜŰ ]+$/u);
    });

    const text = await extractPdfText(bytes);
    expect(text).toContain(c.title);
    expect(text).toContain(c.stepText);
    expect(text).toContain("BIZTONSÁGI ELŐÍRÁSOK");
    expect(text).not.toContain("KIEGÉSZÍTENDŐ");
    expect(text).not.toMatch(/revízió\) beépítve|Felülvizsgálói kérés|nem tudott a vázlatba illeszteni/);
  });
});
