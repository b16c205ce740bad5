import { foldAccents } from "./spanish-text.js";

/**
 * The words students use for the course's concepts that the notes spell differently: abbreviations
 * (CI, IaC, k8s, TDD), the English names of patterns and tools, and everyday words for the notes'
 * terms. Keys are folded single words; values are the notes' own words, added to the query.
 */
const COURSE_SYNONYMS: Readonly<Record<string, string>> = {
  ci: "integración continua",
  cd: "despliegue continuo entrega continua",
  iac: "infraestructura como código",
  k8s: "kubernetes",
  vm: "máquina virtual",
  vms: "máquinas virtuales",
  virtualizacion: "infraestructura virtual",
  tdd: "desarrollo guiado por pruebas",
  test: "prueba",
  tests: "pruebas",
  testing: "pruebas",
  testear: "probar prueba",
  mock: "doble de prueba",
  mocks: "dobles de prueba",
  stub: "doble de prueba",
  stubs: "dobles de prueba",
  observer: "observador",
  strategy: "estrategia",
  factory: "factoría",
  decorator: "decorador",
  pattern: "patrón",
  runner: "gestor de tareas",
  pipeline: "canalización",
  inyeccion: "inyectan inversión",
  inyectar: "inyectan inversión",
  cloud: "nube",
  agil: "scrum",
  suscriptores: "observadores suscritos",
  persistir: "persistente",
  compose: "docker compose",
};

/**
 * The course's words for a folded token (its own spelling excluded), or an empty string.
 *
 * @example
 * courseSynonyms("k8s"); // "kubernetes"
 */
export function courseSynonyms(token: string): string {
  return COURSE_SYNONYMS[foldAccents(token)] ?? "";
}
