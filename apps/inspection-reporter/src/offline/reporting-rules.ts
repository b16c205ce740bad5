import type { Rule, RuleContext, RuleReply, ToolCallInput } from "@trellis/models";
import { VERIFY_THRESHOLDS } from "../agents/agent-definitions.js";
import type { ClarificationQuestion } from "../agents/request-clarification.js";
import { mapAnswers } from "./answer-parsing.js";
import {
  callOf,
  incomingRequest,
  isHandoffResult,
  lastToolResult,
  latestToolValue,
  promptSetting,
  retryableFailure,
  toolJson,
} from "./conversation-reading.js";
import { REPORT_INTENT } from "./general-rules.js";
import { reportFacts } from "./report-facts.js";

export { reportFacts } from "./report-facts.js";

const CANCEL = /^(stop|stoppen|annuleer|annuleren|laat maar|afbreken)\b/i;
const CONTINUE = /\b(af|afmaken|afronden|verder|hervat|hervatten|vervolg|vervolgen|voltooi|voltooien)\b/i;
function needsVerification(result: Record<string, unknown>): boolean {
  const completion = Number(result.completion_percentage ?? 0);
  const confidence = Number(result.overall_confidence ?? 0);
  return completion < VERIFY_THRESHOLDS.completionPercentage || confidence < VERIFY_THRESHOLDS.overallConfidence;
}

function generate(ctx: RuleContext, reportId: unknown): RuleReply {
  const inspector = promptSetting(ctx.messages, "inspector_name");
  const args: Record<string, unknown> = { report_id: reportId };
  if (inspector) args.inspector_name = inspector;
  return { toolCalls: [{ name: "generate_final_report", args }] };
}

/** After start_inspection_report or submit_verification_answers: verify again, or generate (Phase 2). */
function assessReply(ctx: RuleContext): RuleReply {
  const result = toolJson(lastToolResult(ctx)) as Record<string, unknown>;
  if (needsVerification(result)) {
    return { toolCalls: [{ name: "verify_inspection_data", args: { report_id: result.report_id } }] };
  }
  return generate(ctx, result.report_id);
}

/** After verify_inspection_data: pause with the questions, or generate when none are left. */
function clarifyReply(ctx: RuleContext): RuleReply {
  const result = toolJson(lastToolResult(ctx)) as { report_id: string; questions?: ClarificationQuestion[] };
  const questions = result.questions ?? [];
  if (questions.length === 0) return generate(ctx, result.report_id);
  return { toolCalls: [{ name: "request_clarification", args: { questions } }] };
}

/** After request_clarification returned the inspector's reply: submit it as answers per field. */
function submitReply(ctx: RuleContext): RuleReply {
  const result = lastToolResult(ctx, "request_clarification");
  const response = result?.content ?? "";
  const reportId = latestToolValue(ctx.messages, "report_id");
  if (CANCEL.test(response.trim())) {
    return `Goed, ik stop met verifiëren. Het concept ${String(reportId)} blijft bewaard; vraag gerust later om het rapport af te maken.`;
  }
  const call = result ? callOf(ctx.messages, result) : undefined;
  const questions = ((call?.args as { questions?: ClarificationQuestion[] } | undefined)?.questions ?? []).slice();
  return {
    toolCalls: [
      {
        name: "submit_verification_answers",
        args: { report_id: reportId, answers: mapAnswers(questions, response), raw_response: response },
      },
    ],
  };
}

/** The report id of this conversation's latest draft when no final report was made of it. */
function unfinishedDraft(ctx: RuleContext): string | undefined {
  const reportId = latestToolValue(ctx.messages, "report_id");
  if (typeof reportId !== "string") return undefined;
  const finished = ctx.messages.some((m) => {
    if (m.role !== "tool" || m.name !== "generate_final_report") return false;
    const result = toolJson(m);
    return result?.report_id === reportId && result.status === "definitief";
  });
  return finished ? undefined : reportId;
}

function presentReply(ctx: RuleContext): string {
  const result = toolJson(lastToolResult(ctx)) as { markdown?: string; verdict?: string; status?: string };
  if (result.status === "onvolledig") {
    return (
      `Het rapport is opgesteld, maar zonder oordeel (${result.verdict ?? "gegevens ontbreken"}). ` +
      `Vraag "Maak het rapport af" om het aan te vullen.\n\n${result.markdown ?? ""}`
    );
  }
  return `Het inspectierapport is klaar (oordeel: ${result.verdict ?? "onbekend"}).\n\n${result.markdown ?? ""}`;
}

function toolFailure(ctx: RuleContext): string {
  const failed = lastToolResult(ctx);
  return `Dat lukte niet (${failed?.name ?? "tool"}): ${(failed?.content ?? "").replace(/^Error:\s*/, "")}`;
}

/**
 * The offline rules of `reporting-agent`, one step of the seed's workflow per model turn:
 * start → (verify → request_clarification → submit)* while completion < 80% or confidence < 0.7 →
 * generate → present. A call that failed because its MCP server was restarting is repeated once. Requests that are not about a report go back to the general agent.
 *
 * @example
 * const reporting = new RuleChatModel({ rules: reportingRules(), fallback: "…" });
 */
export function reportingRules(): Rule[] {
  const resultOf = (name: string) => (ctx: RuleContext) => {
    const result = lastToolResult(ctx, name);
    return result !== undefined && result.status !== "error";
  };
  return [
    {
      name: "retry-after-restart",
      when: (ctx) => retryableFailure(ctx) !== undefined,
      reply: (ctx) => ({
        content: "De verbinding met de inspectieserver viel even weg; ik probeer het opnieuw.",
        toolCalls: [retryableFailure(ctx) as ToolCallInput],
      }),
    },
    { name: "tool-failed", when: (ctx) => lastToolResult(ctx)?.status === "error", reply: toolFailure },
    {
      name: "assess",
      when: (ctx) => resultOf("start_inspection_report")(ctx) || resultOf("submit_verification_answers")(ctx),
      reply: assessReply,
    },
    { name: "clarify", when: resultOf("verify_inspection_data"), reply: clarifyReply },
    { name: "submit", when: resultOf("request_clarification"), reply: submitReply },
    { name: "present", when: resultOf("generate_final_report"), reply: presentReply },
    {
      // "Maak het rapport af" after a stop: go on with the draft of this conversation, not a blank one
      name: "continue-draft",
      when: (ctx) => {
        const text = incomingRequest(ctx);
        if (text === undefined || !CONTINUE.test(text)) return false;
        const facts = reportFacts(text);
        return !facts.company_name && !facts.kvk_number && unfinishedDraft(ctx) !== undefined;
      },
      reply: (ctx) => {
        const reportId = unfinishedDraft(ctx) as string;
        return {
          content: `Ik ga verder met concept ${reportId}.`,
          toolCalls: [{ name: "verify_inspection_data", args: { report_id: reportId } }],
        };
      },
    },
    {
      name: "start",
      when: (ctx) => {
        const text = incomingRequest(ctx);
        return (
          text !== undefined && ((ctx.last !== undefined && isHandoffResult(ctx.last)) || REPORT_INTENT.test(text))
        );
      },
      reply: (ctx) => {
        const facts = reportFacts(incomingRequest(ctx) ?? "");
        const who = facts.company_name ? ` voor ${facts.company_name}` : "";
        return {
          content: `Ik maak een conceptrapport aan${who}.`,
          toolCalls: [{ name: "start_inspection_report", args: facts }],
        };
      },
    },
    {
      name: "handback",
      when: (ctx) => ctx.last?.role === "user",
      reply: {
        content: "Dat valt buiten de rapportage; ik geef u terug aan de algemene assistent.",
        toolCalls: [{ name: "transfer_to_general", args: {} }],
      },
    },
  ];
}
