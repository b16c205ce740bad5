import { describe, expect, it } from "vitest";
import { classifyDifficultyDetailed } from "./difficulty.js";
import { parseCotResponse } from "./think-node.js";

describe("classifyDifficultyDetailed", () => {
  it.each([
    ["¿Qué es un contenedor?", "basic"],
    ["Define idempotencia", "basic"],
    ["Kubernetes", "basic"],
    ["¿Cómo funciona la caché de capas de un Dockerfile?", "intermediate"],
    ["Explícame el patrón Estrategia con un ejemplo", "intermediate"],
    ["Compara contenedores y máquinas virtuales: ¿cuándo conviene cada uno?", "advanced"],
    ["¿Por qué el principio de sustitución de Liskov importa al diseñar jerarquías? Justifica", "advanced"],
    ["Ventajas y desventajas de los microservicios", "advanced"],
  ])("%s → %s", (query, level) => {
    expect(classifyDifficultyDetailed(query).level).toBe(level);
  });

  it("says why", () => {
    expect(classifyDifficultyDetailed("¿Qué diferencias hay entre TDD y pruebas unitarias? ¿Por qué?").reasons).toEqual(
      ["comparación", "justificación", "varias preguntas"],
    );
  });
});

describe("parseCotResponse", () => {
  it("extracts thinking and answer, tolerating either missing", () => {
    expect(parseCotResponse("<thinking>\n a \n</thinking>\n<answer>b</answer>")).toEqual({
      thinking: "a",
      answer: "b",
    });
    expect(parseCotResponse("plain")).toEqual({ thinking: undefined, answer: undefined });
    expect(parseCotResponse("<answer>only</answer>")).toEqual({ thinking: undefined, answer: "only" });
  });
});
