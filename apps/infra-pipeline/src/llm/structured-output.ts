/**
 * Asks a chat model for JSON that a zod schema accepts: the schema goes into the prompt as JSON Schema,
 * the reply is parsed and validated, and an invalid reply is sent back once with what was wrong.
 */
import type { ChatModel } from "@trellis/models";
import { z } from "zod";

/**
 * Options of {@link generateStructured}.
 *
 * @example
 * await generateStructured(model, PlanDraft, { system, user, signal, attempts: 2 });
 */
export interface StructuredRequest {
  system: string;
  user: string;
  signal?: AbortSignal;
  /** Replies to try before giving up. Default 2. */
  attempts?: number;
}

/**
 * Thrown when the model never produced valid JSON for the schema.
 *
 * @example
 * try { await generateStructured(model, schema, req); } catch (e) { if (e instanceof StructuredOutputError) fallback(); }
 */
export class StructuredOutputError extends Error {
  constructor(
    message: string,
    readonly lastReply: string,
  ) {
    super(message);
    this.name = "StructuredOutputError";
  }
}

/**
 * Gets a value of `schema` from the model.
 *
 * @example
 * const files = await generateStructured(model, z.object({ files: z.array(FileSchema) }), { system, user });
 */
export async function generateStructured<T>(
  model: ChatModel,
  schema: z.ZodType<T>,
  request: StructuredRequest,
): Promise<T> {
  const jsonSchema = JSON.stringify(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }));
  const messages: Array<{ role: "system" | "user" | "assistant"; content: string }> = [
    {
      role: "system",
      content: `${request.system}\n\nReply with one JSON object and nothing else. It must match this JSON Schema:\n${jsonSchema}`,
    },
    { role: "user", content: request.user },
  ];
  const attempts = Math.max(1, request.attempts ?? 2);
  let problem = "";
  let last = "";
  for (let i = 0; i < attempts; i++) {
    const reply = await model.invoke(messages, request.signal ? { signal: request.signal } : {});
    last = reply.content;
    const parsed = parseJson(last);
    if (parsed.ok) {
      const result = schema.safeParse(parsed.value);
      if (result.success) return result.data;
      problem = z.prettifyError(result.error);
    } else {
      problem = parsed.error;
    }
    messages.push({ role: "assistant", content: last });
    messages.push({
      role: "user",
      content: `That reply was not valid:\n${problem}\nReply again with the corrected JSON only.`,
    });
  }
  throw new StructuredOutputError(
    `The ${model.provider} model "${model.model}" gave no valid JSON after ${attempts} attempt(s): ${problem}`,
    last,
  );
}

/**
 * Parses the JSON in a model reply: the whole text, a fenced ```json block, or the outermost `{…}`.
 *
 * @example
 * parseJson('Here:\n```json\n{"a":1}\n```'); // { ok: true, value: { a: 1 } }
 */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const candidates = [text.trim()];
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text);
  if (fenced?.[1]) candidates.push(fenced[1].trim());
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start !== -1 && end > start) candidates.push(text.slice(start, end + 1));
  let error = "the reply holds no JSON object";
  for (const candidate of candidates) {
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch (e) {
      error = `the reply is not valid JSON (${(e as Error).message})`;
    }
  }
  return { ok: false, error };
}
