import { TrellisError } from "@trellis/checkpoint";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { tool } from "./tool.js";

describe("tool()", () => {
  it("turns the zod schema into the JSON Schema the model sees (input side: defaults are optional)", () => {
    const t = tool({
      name: "get_weather",
      description: "Weather for a city",
      schema: z.object({ city: z.string().describe("City name"), unit: z.enum(["C", "F"]).default("C") }),
      fn: ({ city, unit }) => `${city} ${unit}`,
    });
    expect(t.parameters).toEqual({
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        unit: { type: "string", enum: ["C", "F"], default: "C" },
      },
      required: ["city"],
    });
    expect(t.parameters).not.toHaveProperty("$schema");
  });

  it("hides injected arguments from the model's schema (seed 002: asignatura in get_guia)", () => {
    const getGuia = tool({
      name: "get_guia",
      description: "Teaching guide of the current subject",
      schema: z.object({ section: z.string(), asignatura: z.string() }),
      injectState: ["asignatura"],
      fn: ({ section, asignatura }) => `${asignatura}/${section}`,
    });
    expect(getGuia.parameters).toEqual({
      type: "object",
      properties: { section: { type: "string" } },
      required: ["section"],
    });
    expect(getGuia.injected).toEqual({ asignatura: "asignatura" });
  });

  it("accepts a map from argument to a differently named state key, and drops `required` when it empties", () => {
    const t = tool({
      name: "whoami",
      description: "The current user",
      schema: z.object({ user: z.string() }),
      injectState: { user: "userId" },
      fn: ({ user }) => user,
    });
    expect(t.injected).toEqual({ user: "userId" });
    expect(t.parameters).toEqual({ type: "object", properties: {} });
  });

  it("types fn's arguments from the schema", () => {
    const t = tool({
      name: "add",
      description: "Adds",
      schema: z.object({ a: z.number(), b: z.number().optional() }),
      fn: (args) => args.a + (args.b ?? 0),
    });
    expectTypeOf(t.fn).parameter(0).toEqualTypeOf<{ a: number; b?: number | undefined }>();
  });

  it("accepts a plain JSON Schema instead of zod (for MCP tools)", () => {
    const t = tool({
      name: "ping",
      description: "Ping",
      parameters: { $schema: "x", type: "object", properties: { host: { type: "string" } }, required: ["host"] },
      fn: () => "pong",
    });
    expect(t.schema).toBeUndefined();
    expect(t.parameters).toEqual({ type: "object", properties: { host: { type: "string" } }, required: ["host"] });
  });

  const bad: [string, () => unknown, RegExp][] = [
    [
      "a name with spaces",
      () => tool({ name: "get weather", description: "d", schema: z.object({}), fn: () => 1 }),
      /name must be/,
    ],
    [
      "an empty description",
      () => tool({ name: "f", description: " ", schema: z.object({}), fn: () => 1 }),
      /needs a description/,
    ],
    [
      "a non-object JSON schema",
      () => tool({ name: "f", description: "d", parameters: { type: "string" }, fn: () => 1 }),
      /must describe an object/,
    ],
    [
      "an injected key that is not an argument",
      () =>
        tool({
          name: "f",
          description: "d",
          schema: z.object({ a: z.string() }),
          injectState: { b: "b" } as unknown as ["a"],
          fn: () => 1,
        }),
      /injects "b"/,
    ],
  ];
  it.each(bad)("rejects %s with INVALID_ARGUMENT", (_label, define, message) => {
    expect(define).toThrow(message);
    try {
      define();
    } catch (e) {
      expect(e).toBeInstanceOf(TrellisError);
      expect((e as TrellisError).code).toBe("INVALID_ARGUMENT");
    }
  });
});
