/**
 * A graph with typed state for the server tests: an enum key, an integer reducer, a node whose
 * interrupt expects `{ approved: boolean }`, a config schema and a context schema. The schemas are small hand-written
 * Standard Schemas with a Standard JSON Schema (what zod 4 provides): the server knows no schema library.
 */
import { channel, END, interrupt, START, type StandardSchemaV1, StateGraph } from "@trellis/core";

function standard<T>(ok: (v: unknown) => boolean, message: string, json: Record<string, unknown>) {
  const schema: StandardSchemaV1<unknown, T> = {
    "~standard": {
      version: 1,
      vendor: "fixture",
      validate: (value) => (ok(value) ? { value: value as T } : { issues: [{ message }] }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
  return schema;
}

const place = standard<"teams" | "slack">((v) => v === "teams" || v === "slack", "expected one of teams, slack", {
  type: "string",
  enum: ["teams", "slack"],
});
const count = standard<number>((v) => Number.isInteger(v) && (v as number) >= 0, "expected an integer ≥ 0", {
  type: "integer",
  minimum: 0,
});
const approval = standard<{ approved: boolean }>(
  (v) => typeof (v as { approved?: unknown } | null)?.approved === "boolean",
  "approved must be true or false",
  { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
);
const config = standard<{ tone?: string }>(
  (v) => {
    const tone = (v as { tone?: unknown } | null)?.tone;
    return tone === undefined || tone === "formal" || tone === "casual";
  },
  "tone must be formal or casual",
  { type: "object", properties: { tone: { type: "string", enum: ["formal", "casual"] } } },
);

const context = standard<{ user_id?: string }>(
  (v) => {
    const id = (v as { user_id?: unknown } | null)?.user_id;
    return id === undefined || typeof id === "string";
  },
  "user_id must be a string",
  { type: "object", properties: { user_id: { type: "string" } } },
);

/** topic → review (asks for `{ approved }`) → END */
export function typedGraph() {
  return new StateGraph(
    {
      topic: channel.value(""),
      channel: channel.value<"teams" | "slack">("teams", { schema: place }),
      revisions: channel.reduce((a: number, b: number) => a + b, 0, { schema: count }),
      approved: channel.value(false),
    },
    { name: "typed", configSchema: config, contextSchema: context },
  )
    .addNode("review", () => ({ approved: interrupt<{ approved: boolean }>({ ask: "approve?" }).approved }), {
      resumeSchema: approval,
    })
    .addEdge(START, "review")
    .addEdge("review", END)
    .compile();
}
