import { describe, expect, it } from "vitest";
import { COURSE_PASSAGES, SUBJECTS } from "../corpus/course-corpus.js";
import { LocalRetriever } from "./local-retriever.js";
import { searchTerms, stem } from "./spanish-text.js";

describe("the embedded retriever", () => {
  const retriever = new LocalRetriever();

  it("ships a corpus of a few dozen passages over two subjects, each concept once", () => {
    expect(SUBJECTS.map((s) => s.codigo)).toEqual(["iv", "DS"]);
    expect(COURSE_PASSAGES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(COURSE_PASSAGES.map((p) => p.id)).size).toBe(COURSE_PASSAGES.length);
    for (const code of ["iv", "DS"]) expect(retriever.passagesOf(code).length).toBeGreaterThanOrEqual(15);
  });

  it.each([
    ["¿Qué es un volumen?", "iv", "iv-07"],
    ["¿Qué son los contenedores?", "iv", "iv-04"],
    ["imágenes y capas", "iv", "iv-05"],
    ["Terraform y Ansible", "iv", "iv-11"],
    ["el patrón observador", "DS", "DS-09"],
    ["pruebas unitarias", "ds", "DS-13"],
    ["principio de responsabilidad unica", "DS", "DS-04"],
  ])("%s (%s) → %s first", async (query, asignatura, id) => {
    const { results } = await retriever.search({ query, asignatura, topK: 3 });
    expect(results[0]?.metadata.source).toBe(id);
  });

  it("filters by subject and honours top_k", async () => {
    const { results } = await retriever.search({ query: "pruebas tests integración", asignatura: "iv", topK: 2 });
    expect(results).toHaveLength(2);
    expect(results.every((r) => r.metadata.asignatura === "iv")).toBe(true);
    expect((await retriever.search({ query: "volumen", asignatura: "historia", topK: 3 })).results).toEqual([]);
  });

  it("folds accents, drops stop words and stems plurals", () => {
    expect(searchTerms("¿Qué son las Imágenes de los contenedores?")).toEqual(["imag", "contenedor"]);
    expect(searchTerms("imagen")).toEqual(searchTerms("imágenes"));
    expect(stem("pruebas")).toBe(stem("prueba"));
  });
});
