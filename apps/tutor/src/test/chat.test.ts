import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { MemorySaver } from "@trellis/core";
import { type AssistantMessage, messageText, ScriptedChatModel, type ToolMessage } from "@trellis/models";
import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatResponse } from "../chat-response.js";
import { GraphAgent, type GraphAgentOptions, openTutorDeps } from "../graph-agent.js";
import { createTutorApp } from "../http-app.js";
import { buildRoutes } from "../server-entry.js";
import { buildTutorGraph } from "../tutor-graph.js";

let dir: string;
const agents: GraphAgent[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tutor-chat-"));
});
afterEach(() => {
  for (const a of agents.splice(0)) a.close();
  rmSync(dir, { recursive: true, force: true });
});

function makeAgent(options: GraphAgentOptions = {}): GraphAgent {
  const agent = GraphAgent.create({ dbPath: join(dir, "tutor.sqlite"), llm: null, ...options });
  agents.push(agent);
  return agent;
}

async function post(
  app: Hono,
  path: string,
  body: unknown,
): Promise<{ status: number; json: ChatResponse & Record<string, unknown> }> {
  const res = await app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as ChatResponse & Record<string, unknown> };
}

describe("chat turns", () => {
  it("answers a course question with sentences of the retrieved passages, chunks in context", async () => {
    const agent = makeAgent();
    const app = createTutorApp(agent);
    const { status, json } = await post(app, "/chat", { query: "¿Qué es un volumen?", id: "ana", asignatura: "iv" });
    expect(status).toBe(200);
    expect(json.interrupted).toBe(false);
    expect(json.interrupt_info).toBeNull();
    expect(json.message).toMatch(/^Según los apuntes de la asignatura: /);
    expect(json.message).toContain(
      "Un volumen es un almacenamiento persistente que sobrevive al ciclo de vida de un contenedor.",
    );

    const state = await agent.graph.getState({ threadId: "ana" });
    expect(state.values.query_difficulty).toBe("basic");
    expect(state.values.context[0]?.metadata).toMatchObject({ source: "iv-07", asignatura: "iv", concepto: "volumen" });
    expect(state.values.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const call = (state.values.messages[1] as AssistantMessage).toolCalls?.[0];
    expect(call).toMatchObject({ name: "rag_search", args: { query: "¿Qué es un volumen?" } });
    expect(state.values.messages[2]?.content).toMatch(/^This is chunks of context:\n\n- Un volumen es/);
  });

  it("keeps the conversation per thread and resets context every turn", async () => {
    const agent = makeAgent();
    const app = createTutorApp(agent);
    await post(app, "/chat", { query: "¿Qué es Scrum?", id: "luis", asignatura: "DS" });
    const second = await post(app, "/chat", { query: "¿Qué es una prueba unitaria?", id: "luis" });
    expect(second.json.message).toContain("Una prueba unitaria verifica automáticamente");
    const state = await agent.graph.getState({ threadId: "luis" });
    expect(state.values.asignatura).toBe("DS"); // kept from the first turn
    expect(state.values.messages.filter((m) => m.role === "user")).toHaveLength(2);
    expect(state.values.context.every((c) => c.metadata.asignatura === "DS")).toBe(true);
    expect(state.values.context[0]?.metadata.source).toBe("DS-13");
  });

  it("get_guia reads the guide of the subject injected from state, whatever the model sends", async () => {
    const offline = makeAgent();
    const res = await post(createTutorApp(offline), "/chat", {
      query: "¿Cómo se evalúa la asignatura?",
      id: "eva",
      asignatura: "DS",
    });
    expect(res.json.message).toBe(
      "Según la guía docente de Desarrollo de Software (Evaluación): Examen final escrito (50 %), prácticas en grupo con entregas quincenales (40 %) y participación en clase (10 %). Para aprobar hay que obtener al menos un 5 en el examen y en las prácticas.",
    );

    // A model that tries to choose the subject itself: the injected state value wins.
    const scripted = new ScriptedChatModel([
      { toolCalls: [{ id: "g1", name: "get_guia", args: { seccion: "tutorías", asignatura: "iv" } }] },
      (messages) => `Tutorías: ${JSON.parse(messageText(messages.at(-1)) || "{}").contenido}`,
    ]);
    const agent = makeAgent({ llm: scripted, dbPath: join(dir, "scripted.sqlite") });
    const out = await post(createTutorApp(agent), "/chat", {
      query: "¿Cuándo son las tutorías?",
      id: "t",
      asignatura: "DS",
    });
    expect(out.json.message).toBe("Tutorías: Lunes y miércoles de 11:00 a 14:00 en el despacho 3.07.");
    expect(scripted.calls[0]?.tools?.find((t) => t.name === "get_guia")?.parameters).toEqual({
      type: "object",
      properties: { seccion: expect.objectContaining({ type: "string" }) },
    });
    const state = await agent.graph.getState({ threadId: "t" });
    const tool = state.values.messages.find((m) => m.role === "tool") as ToolMessage;
    expect(JSON.parse(tool.content)).toMatchObject({ found: true, asignatura: "DS", seccion: "tutorias" });
  });

  it("an advanced question yields thinking and a clean answer", async () => {
    const agent = makeAgent();
    const { json } = await post(createTutorApp(agent), "/chat", {
      query: "Compara los contenedores y las máquinas virtuales: ¿cuándo conviene usar cada uno?",
      id: "adv",
      asignatura: "iv",
    });
    expect(json.thinking).toMatch(/^La pregunta pide relacionar ideas/);
    expect(json.thinking).toContain("Fragmento 1:");
    expect(json.message).toMatch(/^Según los apuntes de la asignatura:\n- /);
    expect(json.message).not.toMatch(/<\/?(thinking|answer)>/);
    const state = await agent.graph.getState({ threadId: "adv" });
    expect(state.values.query_difficulty).toBe("advanced");
    expect(state.values.thinking).toBe(json.thinking);
    expect(state.values.messages.at(-1)?.content).toBe(json.message);
    // The next, basic question clears the previous chain-of-thought.
    const next = await post(createTutorApp(agent), "/chat", { query: "¿Qué es Kubernetes?", id: "adv" });
    expect(next.json.thinking).toBeUndefined();
    expect((await agent.graph.getState({ threadId: "adv" })).values.thinking).toBeNull();
  });

  it("answers greetings without tools", async () => {
    const { json } = await post(createTutorApp(makeAgent()), "/chat", { query: "Hola", id: "g", asignatura: "iv" });
    expect(json.message).toMatch(/^¡Hola! Soy el asistente de la asignatura/);
  });
});

describe("remote RAG service", () => {
  let hanging: Server | undefined;
  afterEach(async () => {
    hanging?.closeAllConnections();
    await new Promise((r) => hanging?.close(r) ?? r(undefined));
    hanging = undefined;
  });

  it("a service that never answers becomes the tool message 'RAG service timeout' and an empty context", async () => {
    hanging = createServer(() => {
      // never answers
    });
    await new Promise<void>((r) => hanging?.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    const agent = makeAgent({ ragUrl: url, ragTimeoutMs: 150 });
    const started = Date.now();
    const { status, json } = await post(createTutorApp(agent), "/chat", {
      query: "¿Qué es un volumen?",
      id: "slow",
      asignatura: "iv",
    });
    expect(status).toBe(200);
    // the 150 ms RAG timeout answered, not the hanging service (the bound is a margin a loaded machine keeps)
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(json.message).toContain("RAG service timeout");
    const state = await agent.graph.getState({ threadId: "slow" });
    const tool = state.values.messages.find((m) => m.role === "tool");
    expect(tool?.content).toBe("RAG service timeout");
    expect(state.values.context).toEqual([]);
  });

  it("speaks the seed's POST /search contract: one tutor serves as another's RAG_URL", async () => {
    const ragAgent = makeAgent({ dbPath: join(dir, "rag.sqlite") });
    const server = serve({ fetch: createTutorApp(ragAgent).fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise((r) => server.once("listening", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const direct = await fetch(`${url}/search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "patrón Observador", asignatura: "DS", top_k: 2 }),
      });
      const body = (await direct.json()) as { results: { content: string; metadata: { source: string } }[] };
      expect(body.results).toHaveLength(1); // up to 2, but only one passage is about both terms (the cut-off)
      expect(body.results[0]?.metadata.source).toBe("DS-09");

      const agent = makeAgent({ ragUrl: url, ragTimeoutMs: 5_000 });
      const { json } = await post(createTutorApp(agent), "/chat", {
        query: "¿Qué es el patrón Observador?",
        id: "r",
        asignatura: "DS",
      });
      expect(json.message).toContain("El patrón Observador es un patrón de comportamiento");
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("HTTP contract", () => {
  it("rejects bad bodies with 400 and a reason", async () => {
    const app = createTutorApp(makeAgent());
    const cases: [string, unknown, RegExp][] = [
      ["/chat", "{not json", /JSON object/],
      ["/chat", { id: "x" }, /^query: query must be a non-empty string$/],
      ["/chat", { query: "  ", id: "x" }, /query must be a non-empty string/],
      ["/chat", { query: "hola", id: 7 }, /^id: /],
      ["/chat", { query: "hola", id: "x", asignatura: 3 }, /^asignatura: /],
      [
        "/resume_chat",
        { id: "x" },
        /^user_response: user_response must be a non-empty string \(the answer, e.g. "B"\)$/,
      ],
      ["/resume_chat", [], /body|expected object/],
      ["/search", { query: "" }, /^query: /],
    ];
    for (const [path, body, reason] of cases) {
      const { status, json } = await post(app, path, body);
      expect(status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(json.error).toBe("INVALID_ARGUMENT");
      expect(String(json.reason)).toMatch(reason);
    }
  });

  it("resume_chat on a thread with no pending question is a 409 that says what to do", async () => {
    const { status, json } = await post(createTutorApp(makeAgent()), "/resume_chat", {
      id: "nobody",
      user_response: "A",
    });
    expect(status).toBe(409);
    expect(json.error).toBe("NOTHING_TO_RESUME");
    expect(String(json.reason)).toMatch(/POST \/chat/);
  });

  it("mounts under /apps/tutor/ through the server-registry exports", async () => {
    const deps = openTutorDeps({ dbPath: join(dir, "served.sqlite"), llm: null });
    try {
      const graph = buildTutorGraph(deps).withCheckpointer(new MemorySaver());
      const server = new Hono().route("/apps/tutor", buildRoutes({ graph }));
      const { status, json } = await post(server, "/apps/tutor/chat", {
        query: "¿Qué es Docker Compose?",
        id: "m",
        asignatura: "iv",
      });
      expect(status).toBe(200);
      expect(json.message).toContain("Docker Compose declara en un fichero YAML");
      const health = await server.request("/apps/tutor/health");
      expect(await health.json()).toMatchObject({ status: "ok", provider: "offline", retrieval: { failures: 0 } });
    } finally {
      deps.db.close();
    }
  });
});
