import { DS_PASSAGES } from "./corpus-ds.js";
import { IV_PASSAGES } from "./corpus-iv.js";

/**
 * One passage of the course corpus. SAMPLE CONTENT written for this reference app: it summarises
 * textbook knowledge in Spanish and does not come from any university's official material.
 *
 * @example
 * const p: CoursePassage = {
 *   id: "iv-01", asignatura: "iv", tema: "Tema 1. Introducción", concepto: "infraestructura virtual",
 *   definicion: "Recursos de cómputo definidos por software.", texto: "…",
 * };
 */
export interface CoursePassage {
  /** Stable id, `<asignatura>-<nn>`. */
  id: string;
  /** Subject code, as the API's `asignatura` field carries it (`iv`, `DS`). */
  asignatura: string;
  /** Unit of the syllabus the passage belongs to. */
  tema: string;
  /** The concept the passage explains. */
  concepto: string;
  /** One sentence that defines the concept without naming it (used to build test questions offline). */
  definicion: string;
  /** The passage itself. */
  texto: string;
}

/**
 * A subject of the corpus.
 *
 * @example
 * const s: Subject = { codigo: "iv", nombre: "Infraestructura Virtual" };
 */
export interface Subject {
  codigo: string;
  nombre: string;
}

/**
 * The subjects the shipped corpus covers.
 *
 * @example
 * SUBJECTS.map((s) => s.codigo); // ["iv", "DS"]
 */
export const SUBJECTS: readonly Subject[] = [
  { codigo: "iv", nombre: "Infraestructura Virtual" },
  { codigo: "DS", nombre: "Desarrollo de Software" },
];

/**
 * Every passage of the shipped sample corpus, both subjects.
 *
 * @example
 * COURSE_PASSAGES.filter((p) => p.asignatura === "iv").length; // 17
 */
export const COURSE_PASSAGES: readonly CoursePassage[] = [...IV_PASSAGES, ...DS_PASSAGES];

/**
 * The display name of a subject code, or the code itself when the corpus does not know it.
 *
 * @example
 * subjectName("DS"); // "Desarrollo de Software"
 */
export function subjectName(codigo: string | null | undefined): string {
  if (!codigo) return "la asignatura";
  return SUBJECTS.find((s) => s.codigo.toLowerCase() === codigo.toLowerCase())?.nombre ?? codigo;
}
