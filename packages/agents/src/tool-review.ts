import { type NodeContext, TrellisError } from "@trellis/core";
import type { ToolCall, ToolMessage } from "@trellis/models";
import {
  editedActionOf,
  hitlRequest,
  type ReviewDecision,
  type ReviewDecisionType,
  readDecisions,
  type ToolReviewRequest,
} from "./hitl-request.js";

export type { ReviewDecision, ReviewDecisionType, ToolReviewRequest };

/**
 * Which tool calls wait for a person, and what they may decide (`true`: approve, edit or reject).
 *
 * @example
 * const interruptOn: InterruptOn = {
 *   send_email: true,
 *   delete_file: { allowedDecisions: ["approve", "reject"], description: "Deleting cannot be undone." },
 * };
 * const agent = createReactAgent({ model, tools, checkpointer, interruptOn });
 */
export type InterruptOn = Record<
  string,
  boolean | { allowedDecisions: readonly ReviewDecisionType[]; description?: string }
>;

/** A reviewed call: run it (maybe with edited arguments), or answer it without running it. */
export type ReviewedCall = { run: ToolCall } | { answer: ToolMessage };

const ALL: ReviewDecisionType[] = ["approve", "edit", "reject"];

/**
 * Asks a person about the calls `interruptOn` names (one interrupt for the batch, before any tool runs)
 * and returns what to do with each pending call. Calls it does not name run as they are.
 * @internal
 */
export function reviewCalls(calls: readonly ToolCall[], interruptOn: InterruptOn, ctx: NodeContext): ReviewedCall[] {
  const reviewed = calls.filter((c) => interruptOn[c.name]);
  if (reviewed.length === 0) return calls.map((run) => ({ run }));
  const configs = reviewed.map((c) => {
    const rule = interruptOn[c.name];
    return {
      name: c.name,
      allowed: rule === true || rule === undefined || rule === false ? ALL : [...rule.allowedDecisions],
      description:
        typeof rule === "object" && rule.description
          ? rule.description
          : `Tool execution requires approval\n\nTool: ${c.name}\nArgs: ${JSON.stringify(c.args)}`,
    };
  });
  const request: ToolReviewRequest = hitlRequest(
    reviewed.map((c, i) => ({
      name: c.name,
      args: c.args,
      description: configs[i]?.description ?? "",
      allowedDecisions: configs[i]?.allowed ?? ALL,
    })),
  );
  const response = ctx.interrupt<unknown>(request);
  const read = readDecisions(
    response,
    configs.map((c) => ({ name: c.name, allowedDecisions: c.allowed })),
  );
  if (!read.ok) throw new TrellisError("INVALID_ARGUMENT", read.reason);
  const byId = new Map<string, ReviewedCall>();
  reviewed.forEach((call, i) => {
    byId.set(call.id, decide(call, read.decisions[i] as ReviewDecision));
  });
  return calls.map((c) => byId.get(c.id) ?? { run: c });
}

function decide(call: ToolCall, decision: ReviewDecision): ReviewedCall {
  switch (decision.type) {
    case "approve":
      return { run: call };
    case "edit": {
      const edited = editedActionOf(decision);
      if (!edited) {
        throw new TrellisError(
          "INVALID_ARGUMENT",
          `An edit decision needs editedAction: { name, args }; got ${JSON.stringify(decision)}.`,
        );
      }
      return { run: { ...call, name: edited.name, args: edited.args } };
    }
    case "reject":
      return {
        answer: {
          id: `${call.id}-rejected`,
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          status: "error",
          content: decision.message ?? `The user rejected the call to ${call.name}.`,
        },
      };
    case "respond":
      return {
        answer: {
          id: `${call.id}-response`,
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          content: decision.message ?? "",
        },
      };
  }
}
