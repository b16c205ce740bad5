import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FakeOpenAiServer,
  type FakeReply,
  type FakeRequest,
  startFakeOpenAiServer,
} from "@trellis/models/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GraphAgent } from "../graph-agent.js";
import { createTutorApp } from "../http-app.js";
import { createTutorLlm, llmSettingsFromEnv } from "../llm-provider.js";

let dir: string;
let server: FakeOpenAiServer | undefined;
const agents: GraphAgent[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tutor-llm-"));
});
afterEach(async () => {
  for (const a of agents.splice(0)) a.close();
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

type Msg = { role: string; content?: string | null };
const lastOf = (req: FakeRequest): Msg => req.body.messages.at(-1) as Msg;
const systemOf = (req: FakeRequest): string => (req.body.messages[0] as Msg).content ?? "";

/**
 * A stand-in for a vLLM server that behaves like a tool-calling model following the tutor's prompts:
 * it searches for course questions, starts tests, writes queries/questions/gradings as JSON, and
 * answers advanced questions in the <thinking>/<answer> format.
 */
function tutorLikeModel(req: FakeRequest): FakeReply | string {
  const last = lastOf(req);
  const text = String(last.content ?? "");
  if (text.includes("consultas de búsqueda"))
    return '```json\n["Scrum sprints", "product owner", "retrospectiva"]\n```';
  if (text.includes("preguntas de opción múltiple")) {
    return JSON.stringify([
      {
        question: "¿Cuánto dura normalmente un sprint?",
        options: ["Un día", "De dos a cuatro semanas", "Seis meses", "No tiene duración fija"],
        correct_answer: "B",
        explanation: "Los sprints duran de dos a cuatro semanas.",
      },
      {
        question: "¿Quién prioriza la pila del producto?",
        options: ["El scrum master", "El equipo", "El product owner", "El cliente final"],
        correct_answer: "El product owner",
        explanation: "El product owner prioriza la pila del producto.",
      },
    ]);
  }
  if (text.includes("Evalúa la respuesta")) {
    const answer = /Respuesta del estudiante: (.*)/.exec(text)?.[1] ?? "";
    const right = /Respuesta correcta: ([A-D])\)/.exec(text)?.[1];
    const ok = answer.trim().toUpperCase() === right;
    return JSON.stringify({ is_correct: ok, feedback: ok ? "Bien visto." : `No: era la ${right}.` });
  }
  if (last.role === "tool") {
    if (systemOf(req).includes("<thinking>")) {
      return "<thinking>Los apuntes dicen que Scrum organiza el trabajo en sprints; el modelo en cascada es secuencial.</thinking>\n<answer>Scrum itera en sprints cortos; la cascada avanza por fases sin volver atrás.</answer>";
    }
    return `Respuesta basada en ${text.split("\n- ").length - 1} fragmentos.`;
  }
  if (/test/i.test(text))
    return { toolCalls: [{ id: "t1", name: "generate_test", args: { topic: "Scrum", num_questions: 2 } }] };
  return { toolCalls: [{ id: "r1", name: "rag_search", args: { query: text, asignatura: "iv" } }] };
}

async function post(app: ReturnType<typeof createTutorApp>, path: string, body: unknown) {
  const res = await app.request(path, { method: "POST", body: JSON.stringify(body) });
  return (await res.json()) as {
    message: string;
    interrupted: boolean;
    interrupt_info: { question_num: number } | null;
    thinking?: string;
  };
}

describe("LLM providers through @trellis/models", () => {
  it("vllm: the think node binds the tools (asignatura hidden), RAG runs, and <thinking>/<answer> is parsed", async () => {
    server = await startFakeOpenAiServer([], tutorLikeModel);
    const llm = createTutorLlm({ llmProvider: "vllm", vllmUrl: server.url, modelDir: "Qwen/Qwen2.5-7B-Instruct" });
    expect(llm?.provider).toBe("vllm");
    const agent = GraphAgent.create({ dbPath: join(dir, "t.sqlite"), llm: llm ?? null });
    agents.push(agent);
    const app = createTutorApp(agent);

    const basic = await post(app, "/chat", { query: "¿Qué es Scrum?", id: "u1", asignatura: "DS" });
    expect(basic.message).toBe("Respuesta basada en 1 fragmentos."); // only one DS passage mentions Scrum
    const first = server.requests[0]?.body;
    expect(first.model).toBe("Qwen/Qwen2.5-7B-Instruct");
    expect(first.temperature).toBe(0.1);
    expect(first.messages[0].content).toContain("Nivel de la pregunta: básico");
    const ragTool = first.tools.find((t: { function: { name: string } }) => t.function.name === "rag_search");
    expect(Object.keys(ragTool.function.parameters.properties)).toEqual(["query", "top_k"]);
    // The model tried to pass asignatura "iv"; the injected state value (DS) was used.
    const state = await agent.graph.getState({ threadId: "u1" });
    expect(state.values.context.every((c) => c.metadata.asignatura === "DS")).toBe(true);
    expect(server.requests[1]?.body.messages.at(-1).content).toMatch(
      /^This is chunks of context:\n\n- Scrum es un marco/,
    );

    const advanced = await post(app, "/chat", {
      query: "Compara Scrum y el modelo en cascada: ¿por qué se prefiere uno u otro?",
      id: "u1",
    });
    expect(advanced.thinking).toBe(
      "Los apuntes dicen que Scrum organiza el trabajo en sprints; el modelo en cascada es secuencial.",
    );
    expect(advanced.message).toBe("Scrum itera en sprints cortos; la cascada avanza por fases sin volver atrás.");
    expect(server.requests.at(-1)?.body.messages[0].content).toContain("<thinking>");
  });

  it("vllm: a test generated, presented and graded by the model", async () => {
    server = await startFakeOpenAiServer([], tutorLikeModel);
    const agent = GraphAgent.create({
      dbPath: join(dir, "t.sqlite"),
      llmProvider: "vllm",
      vllmUrl: server.url,
      modelDir: "m",
    });
    agents.push(agent);
    expect(agent.provider).toBe("vllm");
    const app = createTutorApp(agent);
    const start = await post(app, "/chat", { query: "Hazme un test de Scrum", id: "u2", asignatura: "DS" });
    expect(start.interrupt_info).toMatchObject({
      question_num: 1,
      total_questions: 2,
      question_text: expect.stringContaining("¿Cuánto dura"),
    });
    const second = await post(app, "/resume_chat", { id: "u2", user_response: "B" });
    expect(second.message).toMatch(/^✅ Bien visto\.\n\nPregunta 2\/2: ¿Quién prioriza/);
    const end = await post(app, "/resume_chat", { id: "u2", user_response: "A" });
    expect(end.interrupted).toBe(false);
    expect(end.message).toContain("❌ No: era la C.");
    expect(end.message).toContain("📊 Resultado del test sobre «Scrum»: 1/2 correctas (50 %).");
    const state = await agent.graph.getState({ threadId: "u2" });
    expect(state.values.questions[1]?.correct_answer).toBe("C"); // the option text was mapped to its letter
    // queries came from the model, context from the embedded index
    expect(state.values.context.length).toBeGreaterThan(0);
    const prompts = server.requests.map((r) => String(r.body.messages.at(-1).content));
    expect(prompts.filter((p) => p.includes("Evalúa la respuesta"))).toHaveLength(2);
  });

  it("mistral and gemini are selected as the seed's GraphAgent does; missing keys are INVALID_CONFIG", async () => {
    server = await startFakeOpenAiServer(["Hola desde Mistral"]);
    const mistral = createTutorLlm({
      llmProvider: "mistral",
      mistralApiKey: "k",
      mistralUrl: server.url,
      mistralModel: "mistral-small",
    });
    expect(mistral?.provider).toBe("mistral");
    expect((await mistral?.invoke(["hola"]))?.content).toBe("Hola desde Mistral");
    expect(server.requests[0]?.body.model).toBe("mistral-small");

    const gemini = createTutorLlm(
      llmSettingsFromEnv({ LLM_PROVIDER: "gemini", GEMINI_API_KEY: "g", GEMINI_MODEL: "gemini-x" }),
    );
    expect(gemini?.provider).toBe("google");
    expect(gemini?.model).toBe("gemini-x");
    expect(createTutorLlm(llmSettingsFromEnv({}))).toBeUndefined();
    expect(() => createTutorLlm({ llmProvider: "gemini" })).toThrow(/GEMINI_API_KEY/);
    expect(() => createTutorLlm({ llmProvider: "vllm" })).toThrow(/MODEL_DIR/);
    expect(() => llmSettingsFromEnv({ LLM_PROVIDER: "openai" })).toThrow(/vllm, gemini, mistral or offline/);
    expect(llmSettingsFromEnv({ TUTOR_LLM_PROVIDER: "mistral", LLM_PROVIDER: "vllm", VLLM_PORT: "9000" })).toEqual({
      llmProvider: "mistral",
      vllmPort: "9000",
    });
  });
});
