/**
 * The nine nodes of the seed. Each returns the keys it changes (Trellis merges them into the state);
 * the LLM calls, the PDF upload and the audit write run inside `ctx.step`, so a node that runs again
 * (retry, crash, resume) never repeats them.
 */
import { type Clock, type NodeContext, TrellisError } from "@trellis/core";
import { type AssistantMessage, type ChatModel, messageText } from "@trellis/models";
import type { AuditStore } from "./audit/audit-store.js";
import { DecisionError } from "./decisions.js";
import { detectLanguage, extractTask } from "./offline/request-parser.js";
import type { PdfRenderer } from "./pdf/twi-pdf-renderer.js";
import {
  GENERATE_CALL,
  type GeneratePromptInput,
  generateMessages,
  INTENT_CALL,
  intentMessages,
  parseIntent,
} from "./prompts.js";
import { askAtPause } from "./review-request.js";
import { type AgentState, type AgentUpdate, AI_LABEL, type ProcessedInput, typedInputSchema } from "./state.js";
import type { BlobStorage } from "./storage/blob-storage.js";
import { matchHeading, missingSections, parseTwiText, placeholderPlaces, renderTwiText } from "./twi-document.js";

/** What the nodes need. */
interface NodeServices {
  model: ChatModel;
  pdf: PdfRenderer;
  blobs: BlobStorage;
  audit: AuditStore;
  clock: Clock;
}

type Node = (state: AgentState, ctx: NodeContext) => Promise<AgentUpdate> | AgentUpdate;

/**
 * Puts the EU AI Act label in front of a model's text, exactly once.
 *
 * @example
 * withAiLabel("1. CÍM\n…").startsWith(AI_LABEL); // true
 */
export function withAiLabel(text: string): string {
  let body = text.trim();
  // A model may echo the label (with or without the emoji's variation selector): keep one copy.
  const echoed = /^(?:⚠\uFE0F?|\s)*AI által generált tartalom[^\n]*\n?/u;
  while (echoed.test(body)) body = body.replace(echoed, "").trim();
  return `${AI_LABEL}\n\n${body}`;
}

/**
 * The blob name of a conversation's PDF: `<tenant>/<conversation>/twi-r<revision>.pdf`, with every
 * character outside `[A-Za-z0-9_.-]` replaced.
 *
 * @example
 * pdfBlobName("acme", "msteams:1a2b", 2); // "acme/msteams_1a2b/twi-r2.pdf"
 */
export function pdfBlobName(tenantId: string, conversationId: string, revision: number): string {
  const safe = (s: string) =>
    s
      .replace(/[^A-Za-z0-9_.-]/g, "_")
      .replace(/^\.+/, "_")
      .slice(0, 120) || "_";
  return `${safe(tenantId)}/${safe(conversationId)}/twi-r${revision}.pdf`;
}

/**
 * What the review pause says when an approval meets a draft that is not a TWI instruction (the model
 * asked back or answered a question): it cannot be published as "human checked and approved".
 *
 * @example
 * NOT_PUBLISHABLE_TEXT; // "Ez a vázlat nem hagyható jóvá: …"
 */
export const NOT_PUBLISHABLE_TEXT =
  "Ez a vázlat nem hagyható jóvá: nem munkautasítás, hanem az asszisztens kérdései vagy válasza. Válaszoljon a kérdésekre a „Javítás kérése” mezőben (revision_feedback), vagy utasítsa el.";

/**
 * True when a draft is a six-section TWI instruction, the only thing that may be approved and published.
 *
 * @example
 * isPublishable(askBackDraft); // false
 */
export function isPublishable(draft: string | null): boolean {
  return draft !== null && parseTwiText(draft) !== undefined;
}

/**
 * Why a draft may not go to the final approval or be published, or `undefined` when it may: it is not
 * an instruction (questions, an answer), a section is empty (named), or gap markers (`[KIEGÉSZÍTENDŐ]`)
 * are left in it (where). Checked when a draft is approved at the review, at the final approval, and
 * for an edited draft, whatever the door.
 *
 * @example
 * publishRefusal(draftWithEmptySafety); // "Ez a vázlat nem tehető közzé: üres rész: 4. BIZTONSÁGI ELŐÍRÁSOK. …"
 */
export function publishRefusal(draft: string | null): string | undefined {
  const doc = draft === null ? undefined : parseTwiText(draft);
  if (!doc) return NOT_PUBLISHABLE_TEXT;
  const missing = missingSections(doc);
  if (missing.length > 0) {
    return `Ez a vázlat nem tehető közzé: üres rész: ${missing.join(", ")}. Mind a hat résznek tartalmaznia kell valamit; írja be a hiányzó részt (szerkesztés), vagy kérjen javítást.`;
  }
  const gaps = placeholderPlaces(doc);
  if (gaps.length > 0) {
    return `Ez a vázlat nem tehető közzé: kitöltendő hely ([KIEGÉSZÍTENDŐ]) maradt benne itt: ${gaps.join("; ")}. Töltse ki szerkesztéssel, vagy kérjen javítást (például „2. lépés kulcspont: …”, „2. lépés indoklás: …”, „Eszközök: …”).`;
  }
  return undefined;
}

/**
 * The text that is published: the approved draft without the reviewer log the writer keeps in front of
 * the six sections (revision notes are a record of the conversation, not part of the instruction).
 *
 * @example
 * publishedText(draft).includes("revízió) beépítve"); // false
 */
export function publishedText(draft: string): string {
  const doc = parseTwiText(draft);
  return doc ? withAiLabel(renderTwiText({ ...doc, notes: [] })) : draft;
}

/**
 * Pulls a pasted instruction out of an edit request: the lines from the first section heading (or
 * numbered step) on.
 *
 * @example
 * existingInstruction("Módosítsd: add safety\n1. CÍM\nX"); // "1. CÍM\nX"
 */
export function existingInstruction(message: string): string | null {
  const lines = message.split(/\r?\n/);
  const start = lines.findIndex((line) => matchHeading(line) !== undefined);
  return start < 0 ? null : lines.slice(start).join("\n").trim();
}

function tokens(reply: AssistantMessage): number {
  return reply.usage?.totalTokens ?? 0;
}

/**
 * The conversation's identity: the thread it runs on. A conversation id given in the input (or a
 * later state update) never names the PDF, the audit row or the signed link — two threads started
 * without one, or one naming another's, would overwrite each other. Only a graph run without a
 * thread (no checkpointer, so it cannot pause or publish twice) falls back to the state's id.
 *
 * @example
 * conversationIdOf(state, ctx); // "9c5907be-…" (the thread id)
 */
export function conversationIdOf(state: AgentState, ctx: NodeContext): string {
  const threadId = ctx.config.threadId ?? ctx.config.configurable?.thread_id;
  return typeof threadId === "string" && threadId !== "" ? threadId : state.conversation_id;
}

/** Ids of the messages the nodes write themselves (drafts, decisions, notices): never a request. */
const NODE_MESSAGE_ID = /:(?:draft|review|approve|review-decision|approve-decision|not-publishable|clarify)(?::\d+)?$/;

/**
 * The request a chat client sent as LangGraph's chat convention (`{ messages: [...] }`, as
 * agent-chat-ui does): the last message of the conversation when a user wrote it (not a decision the
 * nodes recorded), with its id; `undefined` when there is none.
 *
 * @example
 * chatRequest({ ...state, messages: [{ id: "m1", role: "user", content: "Írj TWI-t…" }] }); // { id: "m1", text: "Írj TWI-t…" }
 */
export function chatRequest(state: Pick<AgentState, "messages">): { id: string; text: string } | undefined {
  const last = state.messages.at(-1);
  if (last?.role !== "user") return undefined;
  const id = last.id ?? "";
  if (NODE_MESSAGE_ID.test(id)) return undefined;
  const text = messageText(last).trim();
  return text === "" ? undefined : { id, text };
}

/**
 * The request a run answers: a chat message the conversation has not read yet (a client that sends
 * only `messages`), else the `message` field (the app's channels, and clients that send it).
 *
 * @example
 * requestText(state); // "Írj TWI munkautasítást a raklap fóliázásáról."
 */
export function requestText(state: AgentState): { text: string; messageId: string | null } {
  const chat = chatRequest(state);
  if (chat && chat.id !== state.request_message_id && (state.message.trim() === "" || chat.id !== "")) {
    return { text: chat.text, messageId: chat.id };
  }
  return { text: state.message, messageId: state.request_message_id };
}

/**
 * Who the conversation's PDF and audit row name as its user: the run's authenticated user when the
 * server's auth is on (`ctx.user`, which no client can write), else the `user_id` of the input (a
 * channel's verified sender, the CLI's user). So a caller of the Agent Server API cannot sign a PDF
 * with another user's name.
 *
 * @example
 * authorOf(state, ctx); // "alice" (auth on), else state.user_id
 */
export function authorOf(state: AgentState, ctx: NodeContext): string {
  return ctx.user?.id ?? state.user_id;
}

/**
 * The folder of a conversation's PDFs: `<tenant>/<conversation>`, as {@link pdfBlobName} names them.
 *
 * @example
 * pdfFolder("acme", "msteams:1a2b"); // "acme/msteams_1a2b"
 */
export function pdfFolder(tenantId: string, conversationId: string): string {
  const name = pdfBlobName(tenantId, conversationId, 0);
  return name.slice(0, name.lastIndexOf("/"));
}

/**
 * Checks the typed fields of the whole state — `channel`, `revision_count`, `message`, `user_id`,
 * `tenant_id`, as {@link typedInputSchema} declares them — and names the first one that is wrong
 * (`INVALID_STATE`). The channels' schemas refuse a wrong value a caller writes before it is stored;
 * this also catches a field the caller left out (a run without a `message`). Runs when a request is
 * accepted (`compile({ validateState })`: a 400 over the API), before anything is generated, and again
 * at the review pause.
 *
 * @example
 * checkTypedInput({ ...state, message: "" }); // throws: Input "message" must be the request as text, got "".
 */
export function checkTypedInput(state: AgentState): void {
  // a chat client's request ({ messages } only) is the message
  const result = typedInputSchema.safeParse(
    state.message.trim() === "" ? { ...state, message: chatRequest(state)?.text ?? state.message } : state,
  );
  if (result.success) return;
  const issue = result.error.issues[0];
  const field = String(issue?.path[0] ?? "input");
  const got = (state as Record<string, unknown>)[field];
  throw new TrellisError("INVALID_STATE", `Input "${field}" ${issue?.message}, got ${JSON.stringify(got)}.`, {
    details: { key: field, got },
  });
}

function modeOf(state: AgentState): GeneratePromptInput["mode"] {
  return state.intent === "edit_twi" ? "edit" : state.intent === "question" ? "question" : "new";
}

/**
 * Creates the node functions over the services.
 *
 * @example
 * const nodes = createNodes({ model, pdf, blobs, audit, clock: systemClock });
 */
export function createNodes(services: NodeServices): Record<string, Node> & {
  intent: Node;
  processInput: Node;
  generate: Node;
  review: Node;
  revise: Node;
  approve: Node;
  output: Node;
  audit: Node;
  clarify: Node;
} {
  const { model, clock } = services;
  const now = () => new Date(clock.now()).toISOString();

  return {
    /** The seed's intent_node: temperature 0.1, 20 tokens, one of the four intents. */
    async intent(state, ctx) {
      checkTypedInput(state);
      const request = requestText(state);
      const reply = await ctx.step("classify", (signal) =>
        model.invoke(intentMessages(request.text), { ...INTENT_CALL, signal }),
      );
      return {
        message: request.text,
        request_message_id: request.messageId,
        intent: parseIntent(reply.content),
        llm_model: model.model,
        llm_tokens_used: (state.llm_tokens_used ?? 0) + tokens(reply),
        status: "processing",
        conversation_id: conversationIdOf(state, ctx),
      };
    },

    /** Structures the request for generation (no LLM call: the seed leaves this step to the code). */
    processInput(state) {
      const request = state.message.trim();
      const processed: ProcessedInput = {
        language: detectLanguage(request),
        request,
        task: extractTask(request),
        existing_instruction: state.intent === "edit_twi" ? existingInstruction(request) : null,
      };
      return { processed_input: processed };
    },

    /** The seed's generate_node: temperature 0.3, 4000 tokens; a revision carries the previous draft and the feedback. */
    async generate(state, ctx) {
      const revising = state.revision_feedback !== null && state.draft !== null && state.revision_count > 0;
      const input: GeneratePromptInput = {
        mode: modeOf(state),
        request: state.message,
        processedInput: state.processed_input,
        existingInstruction: state.processed_input?.existing_instruction ?? null,
      };
      if (revising) {
        input.previousDraft = state.draft;
        input.feedback = state.revision_feedback;
        input.revision = state.draft_metadata?.revision ?? state.revision_count - 1;
      }
      const reply = await ctx.step("llm", (signal) =>
        model.invoke(generateMessages(input), { ...GENERATE_CALL, signal }),
      );
      const generatedAt = await ctx.step("generated-at", () => now());
      const draft = withAiLabel(reply.content);
      return {
        draft,
        draft_metadata: { model: model.model, generated_at: generatedAt, revision: state.revision_count },
        status: "review_needed",
        llm_model: model.model,
        llm_tokens_used: (state.llm_tokens_used ?? 0) + tokens(reply),
        messages: [
          { id: `${conversationIdOf(state, ctx)}:draft:${state.revision_count}`, role: "assistant", content: draft },
        ],
      };
    },

    /**
     * Pause #1. A decision already written at this pause (the seed's route: the card's state update,
     * then continue) is acted on; otherwise the node asks with LangChain's HITL request and acts on the
     * decision (`review-request.ts`).
     */
    review(state, ctx) {
      checkTypedInput(state);
      const conversationId = conversationIdOf(state, ctx);
      if (state.status === "review_needed") {
        // only an instruction can be approved: the request offers approve and edit for one alone
        return askAtPause("review", state, ctx, {
          conversationId,
          now,
          id: (what) => `${conversationId}:${what}:${state.revision_count}`,
        });
      }
      if (state.status === "revision_requested" && !state.revision_feedback?.trim()) {
        throw new DecisionError("A revision request needs feedback: say what to change.", "FEEDBACK_REQUIRED");
      }
      if (state.status !== "approved" && state.status !== "revision_requested" && state.status !== "rejected") {
        throw new DecisionError(
          `The review pause expects status "approved", "revision_requested" or "rejected", found "${state.status}". ` +
            "Resume with updateState(config, { status, revision_feedback? }) and invoke(null, config), or answer its interrupt with { decisions: [...] }.",
          "WRONG_PAUSE",
        );
      }
      const refusal = state.status === "approved" ? publishRefusal(state.draft) : undefined;
      if (refusal !== undefined) {
        // Not a complete instruction: re-ask at the same pause (the edge after review loops back), with the reason.
        return {
          status: "review_needed",
          approval_timestamp: null,
          messages: [
            {
              id: `${conversationId}:not-publishable:${state.revision_count}`,
              role: "assistant",
              content: refusal,
            },
          ],
        };
      }
      const said =
        state.status === "revision_requested"
          ? `Javítás kérése: ${state.revision_feedback}`
          : `Döntés: ${state.status}`;
      return {
        // an approval here is not the final one: the final approval's time is written at `approve` only;
        // the text it approved is the only one the final approval may publish
        ...(state.status === "approved" ? { approval_timestamp: null, approved_draft: state.draft } : {}),
        messages: [{ id: `${conversationId}:review:${state.revision_count}`, role: "user", content: said }],
      };
    },

    /** The seed's revise_node: counts the request; the edge after it decides between generate and approve. */
    revise(state) {
      return { revision_count: state.revision_count + 1 };
    },

    /**
     * Pause #2. A final approval already written at this pause (`{ status: "approved",
     * approval_timestamp }`, the seed's route) is acted on; otherwise the node asks with LangChain's HITL
     * request (approve, edit, reject). Nothing is published that is not a six-section instruction.
     */
    approve(state, ctx) {
      if (
        state.status === "approved" &&
        state.approval_timestamp &&
        Number.isNaN(Date.parse(state.approval_timestamp))
      ) {
        throw new DecisionError(
          `The final approval needs the time the person approved: found status "approved" with approval_timestamp ${JSON.stringify(
            state.approval_timestamp,
          )}, which is not a date. Resume with { status: "approved", approval_timestamp: "<ISO 8601 time>" }.`,
          "WRONG_PAUSE",
        );
      }
      const conversationId = conversationIdOf(state, ctx);
      if (state.approved_draft !== null && state.draft !== state.approved_draft) {
        // the draft changed after the review let it through (a state update at the final pause): a new
        // draft is reviewed again, never published straight away
        return {
          status: "review_needed",
          approval_timestamp: null,
          messages: [
            {
              id: `${conversationId}:changed-at-final:${state.revision_count}`,
              role: "assistant",
              content:
                "A vázlat a felülvizsgálat után megváltozott: újra felülvizsgálatra kerül, a végső jóváhagyás előtt.",
            },
          ],
        };
      }
      const decided: AgentUpdate | undefined = state.status === "approved" && state.approval_timestamp ? {} : undefined;
      const update =
        decided ??
        askAtPause("approve", state, ctx, {
          conversationId,
          now,
          id: (what) => `${conversationId}:${what}:${state.revision_count}`,
        });
      const refusal = update.status === "approved" ? publishRefusal(update.draft ?? state.draft) : undefined;
      if (refusal !== undefined) {
        // An answer written straight into the state (the seed's route) over a draft that may not be
        // published (a forced non-instruction, an empty section, gaps left): never publish it.
        throw new DecisionError(refusal, "NOT_PUBLISHABLE");
      }
      return update;
    },

    /** The seed's output_node: PDF bytes → blob upload → signed URL (24 h). */
    async output(state, ctx) {
      const revision = state.draft_metadata?.revision ?? state.revision_count;
      const conversationId = conversationIdOf(state, ctx);
      const blobName = pdfBlobName(state.tenant_id, conversationId, revision);
      const url = await ctx.step("pdf-upload", async () => {
        const bytes = await services.pdf.render(
          publishedText(state.draft ?? ""),
          {
            conversationId,
            tenantId: state.tenant_id,
            model: state.draft_metadata?.model ?? state.llm_model ?? "",
            generatedAt: state.draft_metadata?.generated_at ?? "",
            revision,
            approvedAt: state.approval_timestamp ?? "",
          },
          authorOf(state, ctx),
        );
        return services.blobs.upload(bytes, blobName, "application/pdf");
      });
      return { pdf_url: url, pdf_blob_name: blobName, status: "completed", conversation_id: conversationId };
    },

    /** The seed's audit_node: one `audit_log` row per finished conversation. */
    async audit(state, ctx) {
      // a continue after a failed audit write: the PDF was published, the conversation is completed
      const status = state.status === "error" && state.pdf_url ? "completed" : state.status;
      await ctx.step("audit-log", () =>
        services.audit.record({
          conversation_id: conversationIdOf(state, ctx),
          user_id: authorOf(state, ctx),
          tenant_id: state.tenant_id,
          channel: state.channel,
          intent: state.intent,
          llm_model: state.llm_model,
          revision_count: state.revision_count,
          pdf_blob_name: state.pdf_blob_name,
          status,
          approval_timestamp: state.approval_timestamp,
        }),
      );
      return status === state.status ? {} : { status };
    },

    /** For `unknown`: says what the assistant can do, and ends. */
    clarify(state, ctx) {
      const text = [
        "Nem egészen értem a kérést. TWI munkautasításokat tudok írni és módosítani, és a TWI-ről szóló kérdésekre válaszolok.",
        "Például: „Írj TWI munkautasítást a raklap fóliázásáról.” vagy „Lépések: 1. … 2. …” a saját munkafolyamatáról.",
      ].join("\n");
      return {
        status: "completed",
        messages: [{ id: `${conversationIdOf(state, ctx)}:clarify`, role: "assistant", content: text }],
      };
    },
  };
}

/**
 * The clarification text the `clarify` node leaves in `messages` (the last assistant message).
 *
 * @example
 * lastAssistantText(state); // "Nem egészen értem a kérést…"
 */
export function lastAssistantText(state: AgentState): string {
  const last = [...state.messages].reverse().find((m) => m.role === "assistant");
  return typeof last?.content === "string" ? last.content : "";
}
