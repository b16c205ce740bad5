import { type NodeContext, TrellisError } from "@trellis/core";
import type { ToolCall, ToolMessage } from "@trellis/models";

/** What a person may decide about a tool call the agent wants to make. */
export type ReviewDecisionType = "approve" | "edit" | "reject" | "respond";

/** Which tool calls wait for a person, and what they may decide (`true`: approve, edit or reject). */
export type InterruptOn = Record<
  string,
  boolean | { allowedDecisions: readonly ReviewDecisionType[]; description?: string }
>;

/** A person's decision on one reviewed call, in LangChain's shape (camelCase or snake_case). */
export type ReviewDecision =
  | { type: "approve" }
  | {
      type: "edit";
      editedAction?: { name: string; args: Record<string, unknown> };
      edited_action?: { name: string; args: Record<string, unknown> };
    }
  | { type: "reject"; message?: string }
  | { type: "respond"; message?: string };

/**
 * The interrupt a reviewed batch raises: LangChain's human-in-the-loop request, with its keys in both
 * spellings — `actionRequests`/`reviewConfigs` (LangChain.js) and `action_requests`/`review_configs`
 * (Python, agent-chat-ui) — so stock UIs offer their approve / edit / reject buttons. Answer with
 * `{ decisions: [...] }`, one per action request, in order.
 */
export interface ToolReviewRequest {
  actionRequests: Array<{ name: string; args: unknown; description: string }>;
  reviewConfigs: Array<{ actionName: string; allowedDecisions: ReviewDecisionType[] }>;
  action_requests: Array<{ name: string; args: unknown; description: string }>;
  review_configs: Array<{ action_name: string; allowed_decisions: ReviewDecisionType[] }>;
}

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
  const actions = reviewed.map((c, i) => ({ name: c.name, args: c.args, description: configs[i]?.description ?? "" }));
  const request: ToolReviewRequest = {
    actionRequests: actions,
    reviewConfigs: configs.map((c) => ({ actionName: c.name, allowedDecisions: c.allowed })),
    action_requests: actions,
    review_configs: configs.map((c) => ({ action_name: c.name, allowed_decisions: c.allowed })),
  };
  const response = ctx.interrupt<{ decisions?: ReviewDecision[] } | undefined>(request);
  const decisions = response?.decisions;
  if (!Array.isArray(decisions) || decisions.length !== reviewed.length) {
    throw new TrellisError(
      "INVALID_ARGUMENT",
      `The review of ${reviewed.length} tool call(s) needs { decisions: [...] } with one decision per action request, in order; got ${JSON.stringify(response)}.`,
    );
  }
  const byId = new Map<string, ReviewedCall>();
  reviewed.forEach((call, i) => {
    const decision = decisions[i] as ReviewDecision;
    const allowed = configs[i]?.allowed ?? ALL;
    if (!decision || !allowed.includes(decision.type)) {
      throw new TrellisError(
        "INVALID_ARGUMENT",
        `Decision ${i + 1} (${JSON.stringify(decision)}) is not one of ${allowed.join(", ")} allowed for "${call.name}".`,
      );
    }
    byId.set(call.id, decide(call, decision));
  });
  return calls.map((c) => byId.get(c.id) ?? { run: c });
}

function decide(call: ToolCall, decision: ReviewDecision): ReviewedCall {
  switch (decision.type) {
    case "approve":
      return { run: call };
    case "edit": {
      const edited = decision.editedAction ?? decision.edited_action;
      if (!edited || typeof edited.name !== "string") {
        throw new TrellisError(
          "INVALID_ARGUMENT",
          `An edit decision needs editedAction: { name, args }; got ${JSON.stringify(decision)}.`,
        );
      }
      return { run: { ...call, name: edited.name, args: edited.args ?? {} } };
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
