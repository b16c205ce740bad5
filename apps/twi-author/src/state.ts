import { channel, type StateOf, type UpdateOf } from "@trellis/core";
import { z } from "zod";

/**
 * The label every draft starts with (EU AI Act transparency: the reader must know the text is
 * machine-generated and not yet reviewed). Byte for byte the seed's string.
 *
 * @example
 * draft.startsWith(AI_LABEL); // true for every draft the generate node writes
 */
export const AI_LABEL = "⚠️ AI által generált tartalom — emberi felülvizsgálat szükséges.";

/**
 * Revisions a reviewer may request; the next request is forced to final approval.
 *
 * @example
 * state.revision_count > MAX_REVISIONS; // the edge after `revise` goes to `approve`
 */
export const MAX_REVISIONS = 3;

/**
 * The four intents the classifier may answer.
 *
 * @example
 * const intent: Intent = "generate_twi";
 */
export type Intent = "generate_twi" | "edit_twi" | "question" | "unknown";

/**
 * The intents, in the order the classifier prompt lists them.
 *
 * @example
 * INTENTS.includes("question"); // true
 */
export const INTENTS: readonly Intent[] = ["generate_twi", "edit_twi", "question", "unknown"];

/**
 * The channels the seed serves, plus the terminal.
 *
 * @example
 * const ch: TwiChannel = "telegram";
 */
export type TwiChannel = "msteams" | "telegram" | "cli";

/**
 * A conversation's status. The seed lists `processing | review_needed | revision_requested | approved
 * | completed | error`; `rejected` is what the review card writes when the reviewer rejects.
 *
 * @example
 * const s: TwiStatus = "review_needed";
 */
export type TwiStatus =
  | "processing"
  | "review_needed"
  | "revision_requested"
  | "approved"
  | "rejected"
  | "completed"
  | "error";

/**
 * What `process_input` extracts from the request before generation.
 *
 * @example
 * const p: ProcessedInput = { language: "hu", request: "Írj TWI-t…", task: "csavarok meghúzása" };
 */
export interface ProcessedInput {
  [key: string]: unknown;
  /** `hu` or `en`, guessed from the wording. */
  language: "hu" | "en";
  /** The request as the user wrote it, trimmed. */
  request: string;
  /** The job the instruction is about, when one could be picked out. */
  task: string | null;
  /** For `edit_twi`: the pasted instruction to change, when the message holds one. */
  existing_instruction: string | null;
}

/**
 * The seed's `draft_metadata`: which model wrote the draft, when, and in which revision.
 *
 * @example
 * const meta: DraftMetadata = { model: "offline-twi", generated_at: "2025-01-01T00:00:00.000Z", revision: 0 };
 */
export interface DraftMetadata {
  [key: string]: unknown;
  model: string;
  generated_at: string;
  revision: number;
}

/**
 * The fields a caller types (the run's input, a reviewer's state update), as zod schemas. The state
 * schema declares them on its channels, so a wrong value is refused before anything is written
 * (`INVALID_STATE`, a 400 naming the key over the API) and `getSchemas()` shows them as JSON Schema.
 *
 * @example
 * typedInputSchema.shape.channel.safeParse("whatsapp").success; // false
 */
export const typedInputSchema = z.object({
  user_id: z.string({ error: "must be a string" }),
  tenant_id: z.string({ error: "must be a string" }),
  channel: z.enum(["msteams", "telegram", "cli"], { error: "must be one of msteams, telegram, cli" }),
  message: z
    .string({ error: "must be the request as text" })
    .refine((text) => text.trim() !== "", { error: "must be the request as text" }),
  revision_count: z
    .number({ error: "must be a whole number, 0 or more" })
    .int({ error: "must be a whole number, 0 or more" })
    .min(0, { error: "must be a whole number, 0 or more" }),
});

const fields = typedInputSchema.shape;

/**
 * The graph's state schema: the seed's `AgentState`, one channel per field. `messages` keeps the
 * conversation (request, drafts, feedback) with LangGraph's `add_messages` semantics.
 *
 * @example
 * const graph = new StateGraph(agentStateSchema);
 */
export const agentStateSchema = {
  user_id: channel.value("", { schema: fields.user_id }),
  tenant_id: channel.value("", { schema: fields.tenant_id }),
  conversation_id: channel.value(""),
  channel: channel.value<TwiChannel>("cli", { schema: fields.channel }),
  message: channel.value("", { schema: fields.message }),
  /** The id of the chat message the last request was read from (LangGraph's `{ messages }` input). */
  request_message_id: channel.value<string | null>(null),

  intent: channel.value<Intent | null>(null),
  processed_input: channel.value<ProcessedInput | null>(null),
  draft: channel.value<string | null>(null),
  draft_metadata: channel.value<DraftMetadata | null>(null),
  /** The draft as the review let it through: the final approval publishes only this text. */
  approved_draft: channel.value<string | null>(null),

  revision_feedback: channel.value<string | null>(null, { schema: z.string().nullable() }),
  revision_count: channel.value(0, { schema: fields.revision_count }),

  status: channel.value<TwiStatus>("processing", {
    schema: z.enum(["processing", "review_needed", "revision_requested", "approved", "rejected", "completed", "error"]),
  }),
  pdf_url: channel.value<string | null>(null),
  pdf_blob_name: channel.value<string | null>(null),

  llm_model: channel.value<string | null>(null),
  llm_tokens_used: channel.value<number | null>(null),
  approval_timestamp: channel.value<string | null>(null),
  messages: channel.messages(),
};

/**
 * The state a node receives.
 *
 * @example
 * const s: AgentState = (await graph.getState({ threadId })).values;
 */
export type AgentState = StateOf<typeof agentStateSchema>;

/**
 * What a node may return.
 *
 * @example
 * const u: AgentUpdate = { status: "review_needed" };
 */
export type AgentUpdate = UpdateOf<typeof agentStateSchema>;

/**
 * The input that starts a conversation.
 *
 * @example
 * await graph.invoke(initialState({ conversation_id: "c1", user_id: "u1", tenant_id: "t1", channel: "cli", message: "…" }), { threadId: "c1" });
 */
export interface ConversationStart {
  conversation_id: string;
  user_id: string;
  tenant_id: string;
  channel: TwiChannel;
  message: string;
}

/**
 * The seed's initial state for a new conversation.
 *
 * @example
 * initialState({ conversation_id: "c1", user_id: "u1", tenant_id: "acme", channel: "msteams", message: "Írj TWI-t" });
 */
export function initialState(start: ConversationStart): AgentUpdate {
  return { ...start, messages: [{ role: "user", content: start.message }] };
}

/**
 * The keys a caller may set in a run's input (the graph's input schema): who asks, where, and the
 * request — as the seed's typed input (`revision_count` included) or as chat `messages`. The draft,
 * its status and the review's fields are the graph's own: a reviewer changes them by answering a pause
 * or through `updateState`.
 *
 * @example
 * new StateGraph(agentStateSchema, { input: TWI_INPUT_KEYS });
 */
export const TWI_INPUT_KEYS = [
  "user_id",
  "tenant_id",
  "conversation_id",
  "channel",
  "message",
  "revision_count",
  "messages",
] as const satisfies readonly (keyof typeof agentStateSchema)[];
