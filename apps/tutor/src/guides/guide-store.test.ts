import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { GuideStore, sectionKey } from "./guide-store.js";

describe("GuideStore", () => {
  it("seeds the sample guides once and keeps edits made in the database", () => {
    const db = new BetterSqlite3(":memory:");
    const store = new GuideStore(db);
    expect(store.subjects()).toEqual(["DS", "iv"]);
    db.prepare(
      "UPDATE tutor_guia_secciones SET contenido = 'Editado' WHERE asignatura = 'iv' AND seccion = 'tutorias'",
    ).run();
    const reopened = new GuideStore(db);
    expect(reopened.lookup("iv", "tutorias")).toMatchObject({ found: true, contenido: "Editado" });
    db.close();
  });

  it("finds a section by key or by words, case-insensitively by subject, or gives an overview", () => {
    const store = new GuideStore(new BetterSqlite3(":memory:"));
    expect(store.lookup("ds", "¿Cómo se evalúa?")).toMatchObject({
      found: true,
      asignatura: "DS",
      seccion: "evaluacion",
    });
    expect(store.lookup("iv", "bibliografía")).toMatchObject({ seccion: "bibliografia" });
    const overview = store.lookup("iv");
    expect(overview).toMatchObject({
      found: true,
      seccion: "resumen",
      titulo: "Guía docente de Infraestructura Virtual",
    });
    expect(overview.found && overview.contenido).toContain("6 créditos ECTS");
    expect(store.lookup("historia", "evaluacion")).toEqual({
      found: false,
      asignatura: "historia",
      mensaje: 'No hay guía docente para la asignatura "historia". Asignaturas con guía: DS, iv.',
    });
    expect(store.lookup(null)).toMatchObject({ found: false, asignatura: null });
  });

  it("maps section words", () => {
    expect(sectionKey("horario de tutorías")).toBe("tutorias");
    expect(sectionKey("¿quién imparte la asignatura?")).toBe("profesorado");
    expect(sectionKey("algo")).toBeUndefined();
  });
});
