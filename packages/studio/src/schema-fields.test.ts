import { describe, expect, it } from "vitest";
import { fieldValue, initialFieldValue, schemaFields } from "./schema-fields.js";

const input = {
  type: "object",
  required: ["message"],
  properties: {
    environment: { type: "string", enum: ["dev", "tst", "prd"], default: "dev" },
    dry_run: { type: "boolean", default: false },
    max_retries: { type: "integer", minimum: 1, maximum: 10, default: 3 },
    num_questions: {
      anyOf: [{ type: "integer", minimum: 1, maximum: 9007199254740991 }, { type: "null" }],
      default: null,
    },
    message: { type: "string", default: "" },
    feedback: { type: ["string", "null"], default: null },
    messages: { type: "array", default: [] },
    anything: {},
  },
};

describe("the run form's typed fields", () => {
  it("reads kinds, choices, bounds, nullability and required keys from the input schema", () => {
    const fields = schemaFields(input);
    expect(fields.map((f) => [f.key, f.kind])).toEqual([
      ["environment", "choice"],
      ["dry_run", "checkbox"],
      ["max_retries", "integer"],
      ["num_questions", "integer"],
      ["message", "text"],
      ["feedback", "text"],
    ]);
    expect(fields[0]).toMatchObject({ choices: ["dev", "tst", "prd"], default: "dev" });
    expect(fields[2]).toMatchObject({ minimum: 1, maximum: 10 });
    expect(fields[3]).toMatchObject({ nullable: true, minimum: 1 });
    expect(fields[3]).not.toHaveProperty("maximum");
    expect(fields[4]).toMatchObject({ required: true });
    expect(fields[5]).toMatchObject({ nullable: true });
  });

  it("turns form values into input, or a problem naming the key", () => {
    const [environment, dryRun, maxRetries, numQuestions, message] = schemaFields(input);
    expect(fieldValue(environment as never, "prd")).toEqual({ value: "prd" });
    expect(fieldValue(environment as never, "qa")).toEqual({ problem: "environment must be one of dev, tst, prd." });
    expect(fieldValue(dryRun as never, true)).toEqual({ value: true });
    expect(fieldValue(maxRetries as never, "2")).toEqual({ value: 2 });
    expect(fieldValue(maxRetries as never, "2.5")).toEqual({ problem: "max_retries must be a whole number." });
    expect(fieldValue(maxRetries as never, "11")).toEqual({ problem: "max_retries must be 10 or less." });
    expect(fieldValue(numQuestions as never, "")).toEqual({ value: null });
    expect(fieldValue(message as never, "")).toEqual({ problem: "message is required." });
  });

  it("starts from the example input, else the default", () => {
    const [environment, dryRun] = schemaFields(input);
    expect(initialFieldValue(environment as never, { environment: "prd" })).toBe("prd");
    expect(initialFieldValue(environment as never, {})).toBe("dev");
    expect(initialFieldValue(dryRun as never, {})).toBe(false);
  });
});
