/**
 * The offline model's writer: from the generate prompt's blocks to the reply text — a complete TWI
 * draft in Hungarian, the questions to ask back when the request lacks what a draft needs, or a short
 * answer to a question about TWI. Deterministic: the same prompt always gives the same text.
 */
import type { GeneratePromptInput } from "../prompts.js";
import { parseTwiText, renderTwiText, type TwiDocument } from "../twi-document.js";
import { applyFeedback } from "./feedback-rules.js";
import { findCatalogueJob } from "./offline-catalogue.js";
import { parseRequest, type RequestFacts } from "./request-parser.js";

/**
 * The first line of a reply that asks back instead of drafting.
 *
 * @example
 * reply.startsWith(ASK_BACK_HEADING);
 */
export const ASK_BACK_HEADING = "KIEGÉSZÍTŐ INFORMÁCIÓ SZÜKSÉGES";

/**
 * Marks a place where the request gave no information and the expert must fill it in.
 *
 * @example
 * step.rationale === `${TO_COMPLETE} …`;
 */
export const TO_COMPLETE = "[KIEGÉSZÍTENDŐ]";

/**
 * Writes the reply to a generate prompt.
 *
 * @example
 * writeOffline({ mode: "new", request: "Write a TWI for pallet wrapping" }); // "1. CÍM\nRaklap kézi stretch-fóliázása…"
 */
export function writeOffline(input: GeneratePromptInput): string {
  if (input.mode === "question" && !input.feedback) return answerQuestion(input.request);
  const previous = input.previousDraft ? parseTwiText(input.previousDraft) : undefined;
  if (previous && input.feedback) return revise(previous, input.feedback, input.revision ?? 0);
  if (input.mode === "edit") return edit(input);
  // No draft yet (or the previous reply asked back): the feedback answers the questions.
  const request = input.feedback ? `${input.request}\n${input.feedback}` : input.request;
  if (input.mode === "question") {
    const facts = parseRequest(request);
    return facts.steps.length > 0 || findCatalogueJob(request) ? draftFrom(facts, request) : answerQuestion(request);
  }
  return draftFrom(parseRequest(request), request);
}

function revise(previous: TwiDocument, feedback: string, previousRevision: number): string {
  const { doc, placed, unapplied } = applyFeedback(previous, feedback);
  const revision = previousRevision + 1;
  if (placed.length > 0) {
    doc.notes.push(`Felülvizsgálói kérés (${revision}. revízió) beépítve: ${placed.join("; ")}`);
  }
  if (unapplied.length > 0) {
    doc.notes.push(
      `Felülvizsgálói kérés (${revision}. revízió), amelyet a beépített modell nem tudott a vázlatba illeszteni — kérjük, ellenőrizze: „${unapplied.join("; ")}”`,
    );
  }
  return renderTwiText(doc);
}

function edit(input: GeneratePromptInput): string {
  const existing = input.existingInstruction ? parseTwiText(input.existingInstruction) : undefined;
  const change = input.feedback ?? changeRequest(input.request, input.existingInstruction ?? "");
  if (existing) {
    const { doc, placed, unapplied } = applyFeedback(existing, change);
    if (placed.length > 0) doc.notes.push(`Módosítás a kérés szerint: ${placed.join("; ")}`);
    if (unapplied.length > 0) {
      doc.notes.push(`A beépített modell nem tudta elhelyezni — kérjük, ellenőrizze: „${unapplied.join("; ")}”`);
    }
    return renderTwiText(doc);
  }
  if (input.existingInstruction) {
    return draftFrom(parseRequest(`${change}\n${input.existingInstruction}`), input.existingInstruction);
  }
  return askBack([
    "Kérem, másolja be a módosítandó munkautasítás teljes szövegét (a hat részével: CÍM, CÉL, SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK, BIZTONSÁGI ELŐÍRÁSOK, LÉPÉSEK, MINŐSÉGI ELLENŐRZÉS).",
    "Írja le, mit kell benne megváltoztatni (például „Biztonság: …”, „Új lépés: …”, „2. lépés kulcspont: …”).",
  ]);
}

/** The request without the pasted instruction and the edit wording: the change the user asks for. */
function changeRequest(request: string, existing: string): string {
  const rest = (existing ? request.replace(existing, "") : request).trim();
  return rest
    .replace(/^[^:\n]*(?:módosít|szerkeszd|javítsd|frissítsd|írd át|edit|change|update|modify|revise)[^:\n]*:\s*/iu, "")
    .trim();
}

function draftFrom(facts: RequestFacts, request: string): string {
  const named = `${facts.title ?? ""} ${facts.task ?? ""}`.trim();
  const job = named ? findCatalogueJob(named) : findCatalogueJob(request);
  if (!job && facts.steps.length === 0) return askBack(missingQuestions(facts));
  const known = job?.doc;
  const task = facts.title ?? facts.task ?? "";
  // What the request says wins, section by section; the known job fills the rest; else a marked gap.
  const pick = (given: string[], fromJob: readonly string[] | undefined, gap: string[]) =>
    given.length > 0 ? [...given] : [...(fromJob ?? gap)];
  const doc: TwiDocument = {
    title: facts.title ?? known?.title ?? titleFrom(task),
    goal: facts.goal ?? known?.goal ?? defaultGoal(task),
    materials: pick(facts.materials, known?.materials, [
      `${TO_COMPLETE} A kérés nem nevezett meg anyagot vagy eszközt — a szakértő egészítse ki.`,
    ]),
    safety: pick(facts.safety, known?.safety, [
      "A munkaterületen előírt egyéni védőeszközök viselése kötelező.",
      `${TO_COMPLETE} A kérés nem nevezett meg a feladatra jellemző veszélyt — a szakértő egészítse ki.`,
    ]),
    steps:
      facts.steps.length > 0
        ? facts.steps.map((s) => ({
            action: s.action,
            keyPoints: s.keyPoints.length > 0 ? s.keyPoints : [`${TO_COMPLETE} kulcspont (a kérés nem adta meg)`],
            rationale: s.rationale || `${TO_COMPLETE} indoklás (a kérés nem adta meg)`,
          }))
        : (known?.steps.map((s) => ({ ...s, keyPoints: [...s.keyPoints] })) ?? []),
    qualityChecks: pick(facts.qualityChecks, known?.qualityChecks, [
      "Minden lépés a kulcspontok szerint történt.",
      `${TO_COMPLETE} Mérhető átvételi kritérium (a kérés nem adta meg).`,
    ]),
    notes: [],
  };
  const ownWords = facts.steps.length + facts.materials.length + facts.qualityChecks.length > 0 || facts.goal !== null;
  if (facts.language === "en" && (ownWords || !job)) {
    doc.notes.push("A kérés angol nyelvű volt; a saját megfogalmazású részeket a kérés szavaival vettük át.");
  }
  return renderTwiText(doc);
}

/**
 * "a raklap fóliázásáról" → "raklap fóliázása", "a címkézésről" → "címkézés", "a szerszámcseréhez" →
 * "szerszámcsere": the request names the job in the delative or allative case; a title wants the
 * nominative. Only the last word changes, and only when it ends in one of those suffixes.
 */
function nominative(phrase: string): string {
  const stem = (s: string) => s.replace(/á$/u, "a").replace(/é$/u, "e");
  // the verbal noun that names the job, wherever it stands: "a tengely méréséről tolómérővel"
  const head = /(?<![\p{L}])(\p{L}*(?:ás|és)(?:á|é)?)(?:ról|ről|hoz|hez|höz)(?![\p{L}])/u;
  if (head.test(phrase)) return phrase.replace(head, (_m, s: string) => stem(s));
  return phrase.replace(/(\p{L}{3,})(?:ról|ről|hoz|hez|höz)$/u, (_m, s: string) => stem(s));
}

function titleFrom(task: string): string {
  const t = nominative(task.replace(/^(?:a|az|the)\s+/i, "").trim());
  return t === "" ? "Munkautasítás" : `${t.charAt(0).toUpperCase()}${t.slice(1)}`;
}

function defaultGoal(task: string): string {
  const what = task ? ` („${titleFrom(task)}”)` : "";
  return `A munkafolyamat${what} biztonságos, egységes és elsőre hibamentes elvégzése minden betanított dolgozónál.`;
}

/**
 * The one question an unknown job without steps needs answered: which job (when the request names
 * none), else its steps — named by the request's own words, so the reviewer sees what was understood.
 */
function missingQuestions(facts: RequestFacts): string[] {
  if (!facts.task) {
    return [
      "Melyik munkafolyamatról készüljön a munkautasítás (gép, termék, művelet neve), és milyen lépésekből áll, sorrendben?",
    ];
  }
  return [
    `Milyen lépésekből áll a munka („${titleFrom(facts.task)}”), sorrendben (1., 2., …)? Ha tudja, lépésenként azt is írja le, mire kell figyelni (kulcspont) és miért.`,
  ];
}

function askBack(questions: string[]): string {
  return [
    ASK_BACK_HEADING,
    `A munkautasítást nem tudom kitalált részletek nélkül megírni. Kérem, válaszoljon az alábbi ${questions.length === 1 ? "kérdésre" : "kérdésekre"}`,
    "(a „Javítás kérése” mezőben), és a válasz alapján elkészítem a vázlatot:",
    ...questions.map((q, i) => `${i + 1}. ${q}`),
  ].join("\n");
}

const ANSWERS: ReadonlyArray<[RegExp, string]> = [
  [
    /kulcspont|key point/iu,
    "A kulcspont egy fő lépésen belül az, amire a dolgozónak figyelnie kell: ami eldönti, hogy a munka sikerül-e, ami balesettől óv, vagy ami megkönnyíti a munkát (fogás, trükk). Lépésenként legfeljebb három kulcspontot írjunk, röviden.",
  ],
  [
    /indokl|rationale|reason/iu,
    "Az indoklás minden kulcsponthoz megmondja, miért fontos: a dolgozó így érti a szabályt, és akkor is helyesen dönt, ha a helyzet kicsit eltér a betanítottól.",
  ],
  [
    /fő ?lépés|main step|important step/iu,
    "A fő lépés a művelet egy logikus szakasza, amely előbbre viszi a munkát. Röviden, igével kezdve írjuk le (például „Helyezze be a csavart”), a részletek a kulcspontokba kerülnek.",
  ],
  [
    /twi|training within industry|job instruction/iu,
    "A TWI (Training Within Industry) a betanítás szabványos módszere. A Job Instruction négy lépése: 1) a dolgozó felkészítése, 2) a művelet bemutatása fő lépésekkel, kulcspontokkal és indoklással, 3) kipróbáltatás, 4) követés. A munkautasítás a második lépés írott alapja.",
  ],
];

function answerQuestion(question: string): string {
  const found = ANSWERS.find(([re]) => re.test(question));
  if (found) return found[1];
  return [
    ASK_BACK_HEADING,
    "Erre a kérdésre a beépített (offline) modell nem tud megbízható választ adni, és nem akar kitalálni semmit.",
    "1. Pontosítsa a kérdést (a TWI módszerről, a fő lépésekről, kulcspontokról vagy az indoklásról tudok válaszolni),",
    "2. vagy kérjen munkautasítást a munkafolyamat lépéseinek felsorolásával.",
  ].join("\n");
}
