import { type Tool, tool } from "@trellis/models";
import { z } from "zod";
import type { GuideStore } from "../guides/guide-store.js";
import type { Retriever, SearchResponse } from "../retrieval/retriever.js";

/**
 * The three tools the think node offers the model (the seed's `AVAILABLE_TOOLS`).
 *
 * @example
 * const { ragSearch, getGuia, generateTest, all } = createTutorTools({ retriever, guides });
 * await model.invoke(messages, { tools: all });
 */
export interface TutorTools {
  ragSearch: Tool;
  getGuia: Tool;
  generateTest: Tool;
  all: Tool[];
}

/**
 * Default number of chunks `rag_search` retrieves.
 *
 * @example
 * await retriever.search({ query, asignatura, topK: DEFAULT_TOP_K });
 */
export const DEFAULT_TOP_K = 3;

/**
 * Builds the tools. `asignatura` is injected from the state into `rag_search` and `get_guia`: the model
 * neither sees nor sets it. `generate_test` is never run as a function: the router sends its calls to
 * the test-session subgraph, which reads the arguments.
 *
 * @example
 * const tools = createTutorTools({ retriever: new LocalRetriever(), guides });
 * tools.getGuia.parameters.properties; // { seccion: … } — no asignatura
 */
export function createTutorTools(deps: { retriever: Retriever; guides: GuideStore }): TutorTools {
  const ragSearch = tool({
    name: "rag_search",
    description:
      "Busca en los documentos (apuntes) de la asignatura actual los fragmentos más relevantes para una consulta.",
    schema: z.object({
      query: z.string().min(1).describe("Consulta de búsqueda en español"),
      top_k: z.number().int().min(1).max(10).default(DEFAULT_TOP_K).describe("Número de fragmentos"),
      asignatura: z.string().nullable(),
    }),
    injectState: ["asignatura"],
    fn: ({ query, top_k, asignatura }, ctx): Promise<SearchResponse> =>
      deps.retriever.search({ query, asignatura, topK: top_k }, ctx.signal),
  });
  const getGuia = tool({
    name: "get_guia",
    description:
      "Consulta la guía docente de la asignatura actual: descripcion, profesorado, temario, evaluacion, bibliografia o tutorias.",
    schema: z.object({
      seccion: z
        .string()
        .optional()
        .describe("Sección: descripcion, profesorado, temario, evaluacion, bibliografia o tutorias"),
      asignatura: z.string().nullable(),
    }),
    injectState: ["asignatura"],
    fn: ({ seccion, asignatura }) => deps.guides.lookup(asignatura, seccion),
  });
  const generateTest = tool({
    name: "generate_test",
    description: "Empieza un test interactivo de opción múltiple sobre un tema de la asignatura, pregunta a pregunta.",
    schema: z.object({
      topic: z.string().min(1).describe("Tema del test"),
      num_questions: z.number().int().min(1).max(10).default(5).describe("Número de preguntas"),
      difficulty: z.enum(["basic", "intermediate", "advanced"]).optional().describe("Dificultad"),
    }),
    fn: () => "The test session subgraph runs this tool.",
  });
  return { ragSearch, getGuia, generateTest, all: [ragSearch, getGuia, generateTest] };
}
