import { foldAccents, tokenize } from "../retrieval/spanish-text.js";
import type { DifficultyLevel } from "../state.js";

/**
 * A difficulty classification with the evidence behind it (the seed's `classify_difficulty_detailed`).
 *
 * @example
 * const r: DifficultyResult = { level: "advanced", score: 4, reasons: ["comparación", "criterio de uso"] };
 */
export interface DifficultyResult {
  level: DifficultyLevel;
  score: number;
  reasons: string[];
}

const ADVANCED: ReadonlyArray<[RegExp, string]> = [
  [/\bcompar(a|ar|acion|ame)\b|\bdiferencias?\b|\bfrente a\b|\bvs\.?\b|\bversus\b/, "comparación"],
  [/\bventajas y (desventajas|inconvenientes)\b|\bpros y contras\b/, "ventajas e inconvenientes"],
  [/\bpor que\b|\bjustific|\brazona\b|\bargument/, "justificación"],
  [/\banaliz|\bevalu(a|ar)\b|\bcritic/, "análisis"],
  [/\bdisen(a|ar|arias)\b|\bcomo (estructurarias|organizarias|disenarias)\b/, "diseño"],
  [/\bcuando (conviene|usarias|elegirias|es mejor)\b|\bque elegirias\b|\ben que casos\b/, "criterio de uso"],
  [/\bque pasaria\b|\bimplicaciones\b|\bconsecuencias\b|\brelacion entre\b/, "razonamiento causal"],
];

const INTERMEDIATE: ReadonlyArray<[RegExp, string]> = [
  [/\bcomo (funciona|se (usa|hace|crea|aplica|construye|configura))\b/, "funcionamiento"],
  [/\bexplic|\bdescrib|\ben que consiste\b/, "explicación"],
  [/\bpara que (sirve|se usa)\b|\bejemplos?\b|\bpasos\b/, "uso y ejemplos"],
];

const BASIC: ReadonlyArray<[RegExp, string]> = [
  [/^\s*(que|quien|cual) (es|son)\b|\bdefin/, "definición"],
  [/\bque significa\b|\bsignificado\b/, "significado"],
];

/**
 * Classifies a question as basic, intermediate or advanced from its wording: comparisons,
 * justifications, design and trade-off questions weigh towards advanced; "how does it work" and
 * "explain" towards intermediate; definitions towards basic. Long and multi-part questions add weight.
 *
 * @example
 * classifyDifficultyDetailed("¿Qué es un contenedor?").level; // "basic"
 * classifyDifficultyDetailed("¿Cómo funciona la caché de capas de un Dockerfile?").level; // "intermediate"
 * classifyDifficultyDetailed("Compara contenedores y máquinas virtuales: ¿cuándo conviene cada uno?").level; // "advanced"
 */
export function classifyDifficultyDetailed(query: string): DifficultyResult {
  const text = foldAccents(query).replace(/[¿?¡!,;:()]/g, " ");
  const reasons: string[] = [];
  let score = 0;
  for (const [pattern, reason] of ADVANCED) {
    if (pattern.test(text)) {
      score += 2;
      reasons.push(reason);
    }
  }
  // Explanation cues raise a question to intermediate, never on their own to advanced.
  const explanation = INTERMEDIATE.filter(([pattern]) => pattern.test(text)).map(([, reason]) => reason);
  if (explanation.length > 0) score += 1;
  reasons.push(...explanation);
  for (const [pattern, reason] of BASIC) {
    if (pattern.test(text)) {
      score -= 1;
      reasons.push(reason);
    }
  }
  const words = tokenize(query).length;
  if (words > 40) {
    score += 2;
    reasons.push("pregunta larga");
  } else if (words > 25) {
    score += 1;
    reasons.push("pregunta extensa");
  }
  if ((query.match(/\?/g) ?? []).length > 1) {
    score += 1;
    reasons.push("varias preguntas");
  }
  const level: DifficultyLevel =
    score >= 2 ? "advanced" : score >= 1 || (score === 0 && words >= 8) ? "intermediate" : "basic";
  return { level, score, reasons };
}
