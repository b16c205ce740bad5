import type { Database } from "better-sqlite3";
import { foldAccents } from "../retrieval/spanish-text.js";
import { SAMPLE_GUIDES, type TeachingGuide } from "./guide-data.js";

/**
 * What `get_guia` returns: one section of a guide, the guide's overview, or why there is nothing.
 *
 * @example
 * const r: GuideLookup = { found: true, asignatura: "iv", nombre: "Infraestructura Virtual", seccion: "evaluacion", titulo: "Evaluación", contenido: "…" };
 */
export type GuideLookup =
  | { found: true; asignatura: string; nombre: string; seccion: string; titulo: string; contenido: string }
  | { found: false; asignatura: string | null; mensaje: string };

const SECTION_KEYWORDS: ReadonlyArray<[string, RegExp]> = [
  ["evaluacion", /evalua|nota|examen|calific|aprob|porcentaje|peso/],
  ["profesorado", /profesor|docente|coordina|imparte/],
  ["bibliografia", /bibliograf|libro|lectura|referencia/],
  ["tutorias", /tutori|horario|despacho|cita/],
  ["temario", /temario|tema|contenido|programa|unidad/],
  ["descripcion", /descrip|general|resumen|credito|ects|curso|de que trata/],
];

/**
 * Maps what a user or a model calls a section ("¿cómo se evalúa?", "Bibliografía") to a section key,
 * or undefined when it names none.
 *
 * @example
 * sectionKey("criterios de evaluación"); // "evaluacion"
 * sectionKey("horario de tutorías"); // "tutorias"
 */
export function sectionKey(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const folded = foldAccents(text);
  return SECTION_KEYWORDS.find(([, pattern]) => pattern.test(folded))?.[0];
}

/**
 * The teaching guides, stored in the app's SQLite database (tables `tutor_guias` and
 * `tutor_guia_secciones`). The shipped sample guides are inserted on first open; rows already there are
 * kept, so a deployment can edit its guides in the database.
 *
 * @example
 * const store = new GuideStore(new BetterSqlite3("tutor.sqlite"));
 * store.lookup("DS", "evaluación"); // { found: true, seccion: "evaluacion", contenido: "Examen final escrito (50 %)…" }
 */
export class GuideStore {
  readonly #db: Database;

  constructor(db: Database, guides: readonly TeachingGuide[] = SAMPLE_GUIDES) {
    this.#db = db;
    db.exec(`
      CREATE TABLE IF NOT EXISTS tutor_guias (
        asignatura TEXT PRIMARY KEY,
        nombre TEXT NOT NULL,
        curso TEXT NOT NULL,
        creditos INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS tutor_guia_secciones (
        asignatura TEXT NOT NULL REFERENCES tutor_guias(asignatura),
        seccion TEXT NOT NULL,
        orden INTEGER NOT NULL,
        titulo TEXT NOT NULL,
        contenido TEXT NOT NULL,
        PRIMARY KEY (asignatura, seccion)
      );
    `);
    const insertGuide = db.prepare(
      "INSERT OR IGNORE INTO tutor_guias (asignatura, nombre, curso, creditos) VALUES (?, ?, ?, ?)",
    );
    const insertSection = db.prepare(
      "INSERT OR IGNORE INTO tutor_guia_secciones (asignatura, seccion, orden, titulo, contenido) VALUES (?, ?, ?, ?, ?)",
    );
    db.transaction(() => {
      for (const g of guides) {
        insertGuide.run(g.asignatura, g.nombre, g.curso, g.creditos);
        for (const [i, s] of g.secciones.entries())
          insertSection.run(g.asignatura, s.seccion, i, s.titulo, s.contenido);
      }
    })();
  }

  /** The subject codes that have a guide. */
  subjects(): string[] {
    return (
      this.#db.prepare("SELECT asignatura FROM tutor_guias ORDER BY asignatura").all() as { asignatura: string }[]
    ).map((r) => r.asignatura);
  }

  /**
   * One section of a subject's guide (`seccion` may be a key or free text), or, without a section it
   * recognises, the guide's overview: description, course, credits and the sections it has.
   */
  lookup(asignatura: string | null | undefined, seccion?: string): GuideLookup {
    if (!asignatura) {
      return { found: false, asignatura: null, mensaje: "No se ha indicado la asignatura de la conversación." };
    }
    const guide = this.#db
      .prepare("SELECT asignatura, nombre, curso, creditos FROM tutor_guias WHERE lower(asignatura) = lower(?)")
      .get(asignatura) as { asignatura: string; nombre: string; curso: string; creditos: number } | undefined;
    if (!guide) {
      return {
        found: false,
        asignatura,
        mensaje: `No hay guía docente para la asignatura "${asignatura}". Asignaturas con guía: ${this.subjects().join(", ")}.`,
      };
    }
    const key = sectionKey(seccion);
    const rows = this.#db
      .prepare("SELECT seccion, titulo, contenido FROM tutor_guia_secciones WHERE asignatura = ? ORDER BY orden")
      .all(guide.asignatura) as { seccion: string; titulo: string; contenido: string }[];
    const row = rows.find((r) => r.seccion === (key ?? "descripcion"));
    const base = { found: true as const, asignatura: guide.asignatura, nombre: guide.nombre };
    if (key && row) return { ...base, seccion: row.seccion, titulo: row.titulo, contenido: row.contenido };
    const sections = rows.map((r) => r.titulo.toLowerCase()).join(", ");
    return {
      ...base,
      seccion: "resumen",
      titulo: `Guía docente de ${guide.nombre}`,
      contenido:
        `${row?.contenido ?? ""} ${guide.curso}, ${guide.creditos} créditos ECTS. Secciones de la guía: ${sections}.`.trim(),
    };
  }
}
