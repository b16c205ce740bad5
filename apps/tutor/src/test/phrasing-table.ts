/**
 * The tutor's phrasing table (issue 36): requests as Spanish-speaking students write them — quizzes in
 * many phrasings, course questions, guide questions — each with what a right answer is. Written for
 * this app; `phrasing.test.ts` runs it through `POST /chat` and reports the share answered right.
 */
export type Expected =
  /** A quiz of `count` questions whose passages are all in `sources` (or spanning ≥ 3 units: `whole`). */
  | { quiz: { count: number; sources?: readonly string[]; whole?: true } }
  /** An answer from the passage `source`. */
  | { answer: string }
  /** An answer from the course guide. */
  | { guide: true };

export interface Phrasing {
  query: string;
  asignatura: "iv" | "DS";
  expected: Expected;
}

const PATTERNS = ["DS-09", "DS-10", "DS-11", "DS-12"];
const CONTAINERS = ["iv-04", "iv-05", "iv-06", "iv-07", "iv-17"];
const IAC = ["iv-11", "iv-12"];
const TESTING = ["DS-13", "DS-14", "DS-15", "DS-16"];
const SOLID = ["DS-04", "DS-05", "DS-06", "DS-07"];
const DOCKER = ["iv-05", "iv-06", "iv-15"];
const CI_CD = ["iv-08", "iv-09", "iv-10"];
const UNIT_5 = ["iv-13", "iv-14", "iv-15", "iv-16"];

export const TUTOR_PHRASINGS: readonly Phrasing[] = [
  {
    query: "¿Me haces un test de 4 preguntas sobre patrones de diseño?",
    asignatura: "DS",
    expected: { quiz: { count: 4, sources: PATTERNS } },
  },
  { query: "quiz de 2 preguntas de patrones", asignatura: "DS", expected: { quiz: { count: 2, sources: PATTERNS } } },
  { query: "Pregúntame sobre Scrum", asignatura: "DS", expected: { quiz: { count: 1, sources: ["DS-01"] } } },
  { query: "evaluame de SOLID, 3 preguntas", asignatura: "DS", expected: { quiz: { count: 3, sources: SOLID } } },
  {
    query: "Prepárame un examen de prueba de toda la materia con 8 preguntas",
    asignatura: "DS",
    expected: { quiz: { count: 8, whole: true } },
  },
  {
    query: "cuestionario de 6 preguntas sobre todos los temas",
    asignatura: "iv",
    expected: { quiz: { count: 6, whole: true } },
  },
  {
    query: "hazme un examen general de la asignatura",
    asignatura: "iv",
    expected: { quiz: { count: 5, whole: true } },
  },
  {
    query: "Quisiera practicar con un test de tres preguntas acerca de infraestructura como código",
    asignatura: "iv",
    expected: { quiz: { count: 2, sources: IAC } },
  },
  {
    query: "necesito un simulacro de examen de contenedores, 5 preguntas porfa",
    asignatura: "iv",
    expected: { quiz: { count: 5, sources: CONTAINERS } },
  },
  { query: "¿podemos hacer un test de docker?", asignatura: "iv", expected: { quiz: { count: 2, sources: DOCKER } } },
  { query: "ponme unas preguntas del tema 3", asignatura: "DS", expected: { quiz: { count: 4, sources: PATTERNS } } },
  {
    query: "dame un cuestionario tipo test sobre testing",
    asignatura: "DS",
    expected: { quiz: { count: 4, sources: TESTING } },
  },
  {
    query: "Un test de dos preguntas de integración continua, por favor",
    asignatura: "iv",
    expected: { quiz: { count: 2, sources: CI_CD } },
  },
  {
    query: "genera 3 preguntas sobre microservicios y orquestación",
    asignatura: "iv",
    expected: { quiz: { count: 3, sources: UNIT_5 } },
  },
  {
    query: "Comprueba lo que sé de pruebas del software con 4 preguntas",
    asignatura: "DS",
    expected: { quiz: { count: 4, sources: TESTING } },
  },
  { query: "vamos con otro test, esta vez de IaC", asignatura: "iv", expected: { quiz: { count: 2, sources: IAC } } },
  {
    query: "empezamos un cuestionario de 10 preguntas de todo el curso",
    asignatura: "iv",
    expected: { quiz: { count: 10, whole: true } },
  },
  {
    query: "quiero repasar con un test sobre el patrón decorador",
    asignatura: "DS",
    expected: { quiz: { count: 1, sources: ["DS-12"] } },
  },
  { query: "¿cuál es la diferencia entre un stub y un mock?", asignatura: "DS", expected: { answer: "DS-15" } },
  { query: "para que vale la retrospectiva en scrum", asignatura: "DS", expected: { answer: "DS-01" } },
  { query: "qué es la entrega continua", asignatura: "iv", expected: { answer: "iv-09" } },
  { query: "por qué se pierden los cambios al borrar un contenedor", asignatura: "iv", expected: { answer: "iv-07" } },
  {
    query: "Cómo arranca tan rápido un contenedor comparado con una VM",
    asignatura: "iv",
    expected: { answer: "iv-04" },
  },
  { query: "que hace ansible", asignatura: "iv", expected: { answer: "iv-11" } },
  { query: "¿qué son las réplicas en kubernetes?", asignatura: "iv", expected: { answer: "iv-14" } },
  { query: "¿Qué es un test unitario?", asignatura: "DS", expected: { answer: "DS-13" } },
  { query: "¿para qué sirven los tests en la integración continua?", asignatura: "iv", expected: { answer: "iv-08" } },
  { query: "¿cómo se evalúa la asignatura?", asignatura: "iv", expected: { guide: true } },
  { query: "¿quién da las clases?", asignatura: "DS", expected: { guide: true } },
  { query: "¿Cuándo son las tutorías?", asignatura: "iv", expected: { guide: true } },
  { query: "¿Qué peso tiene el examen final en la nota?", asignatura: "DS", expected: { guide: true } },
  { query: "¿qué libros recomiendan?", asignatura: "iv", expected: { guide: true } },
];
