/**
 * Issue 36, tutor finding 1: retrieval finds the passage a student means. Measured through the app's
 * `POST /search` door (the seed's RAG contract) over a question set of our own
 * (`retrieval-questions.ts`, 60 questions with the passage that answers each): recall@3 is printed and
 * must be at least 0.9. Questions the notes do not cover still find nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GraphAgent } from "../graph-agent.js";
import { createTutorApp } from "../http-app.js";
import { RETRIEVAL_QUESTIONS } from "./retrieval-questions.js";

let dir: string;
let agent: GraphAgent;
let app: ReturnType<typeof createTutorApp>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tutor-recall-"));
  agent = GraphAgent.create({ dbPath: join(dir, "tutor.sqlite"), llm: null });
  app = createTutorApp(agent);
});
afterAll(() => {
  agent.close();
  rmSync(dir, { recursive: true, force: true });
});

async function search(query: string, asignatura: string): Promise<string[]> {
  const res = await app.request("/search", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, asignatura, top_k: 3 }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { results: { metadata: { source: string } }[] };
  return body.results.map((r) => r.metadata.source);
}

describe("retrieval recall@3 over the course question set (POST /search)", () => {
  it("finds the expected passage in the top 3 for at least 90 % of the questions", async () => {
    expect(RETRIEVAL_QUESTIONS.length).toBeGreaterThanOrEqual(40);
    let found = 0;
    let first = 0;
    const misses: string[] = [];
    for (const q of RETRIEVAL_QUESTIONS) {
      const ids = await search(q.query, q.asignatura);
      if (ids.includes(q.expected)) found++;
      else misses.push(`${q.query} → ${ids.join(", ") || "nothing"} (expected ${q.expected})`);
      if (ids[0] === q.expected) first++;
    }
    const recall = found / RETRIEVAL_QUESTIONS.length;
    console.log(
      `[tutor] recall@3 = ${recall.toFixed(3)} (${found}/${RETRIEVAL_QUESTIONS.length}), ` +
        `top-1 = ${(first / RETRIEVAL_QUESTIONS.length).toFixed(3)}${misses.length ? `; misses: ${misses.join(" | ")}` : ""}`,
    );
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });

  it("the volumes passage comes first for a volume question that names docker", async () => {
    expect((await search("¿para qué sirve un volumen en docker?", "iv"))[0]).toBe("iv-07");
  });

  it.each([
    ["¿quién ganó el mundial de 2010?", "iv"],
    ["¿qué es una red neuronal?", "iv"],
    ["¿Cómo funciona la integración continua con tests automáticos?", "DS"],
    ["receta de tortilla de patatas", "DS"],
  ])("%s (%s) finds nothing: the notes do not cover it", async (query, asignatura) => {
    expect(await search(query, asignatura)).toEqual([]);
  });
});
