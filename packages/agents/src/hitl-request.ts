/**
 * LangChain's human-in-the-loop request and decisions, for any pause that asks a person to approve an
 * action: the interrupt value stock UIs (agent-chat-ui, `useStream` pages, Agent Inbox's successor)
 * draw approve / edit / reject buttons for, and the reader of the `{ decisions: [...] }` they answer
 * with. The tool-call review of `createToolNode({ interruptOn })` is built on it, and so are the apps'
 * approval pauses.
 */

/**
 * What a person may decide about an action waiting for approval.
 *
 * @example
 * const allowed: ReviewDecisionType[] = ["approve", "edit", "reject"];
 * const interruptOn: InterruptOn = { send_email: { allowedDecisions: allowed } };
 */
export type ReviewDecisionType = "approve" | "edit" | "reject" | "respond";

/**
 * A person's decision on one action, in LangChain's shape (camelCase or snake_case).
 *
 * @example
 * const decisions: ReviewDecision[] = [
 *   { type: "approve" },
 *   { type: "edit", editedAction: { name: "send_email", args: { to: "ana@example.com" } } },
 *   { type: "reject", message: "Do not email the customer yet." },
 * ];
 * await agent.invoke(new Command({ resume: { decisions } }), { threadId });
 */
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
 * LangChain's human-in-the-loop request, with its keys in both spellings — `actionRequests`/
 * `reviewConfigs` (LangChain.js) and `action_requests`/`review_configs` (Python, agent-chat-ui) — so
 * stock UIs offer their approve / edit / reject buttons. Answer with `{ decisions: [...] }`, one per
 * action request, in order.
 *
 * @example
 * const { interrupts } = await agent.getState({ threadId });
 * const request = interrupts[0]?.value as ToolReviewRequest;
 * const decisions = request.actionRequests.map(() => ({ type: "approve" }));
 * await agent.invoke(new Command({ resume: { decisions } }), { threadId });
 */
export interface ToolReviewRequest {
  actionRequests: Array<{ name: string; args: unknown; description: string }>;
  reviewConfigs: Array<{ actionName: string; allowedDecisions: ReviewDecisionType[] }>;
  action_requests: Array<{ name: string; args: unknown; description: string }>;
  review_configs: Array<{ action_name: string; allowed_decisions: ReviewDecisionType[] }>;
}

/**
 * One action a person is asked to approve.
 *
 * @example
 * const action: HitlAction = { name: "publish", args: { draft }, description: "Publish this?", allowedDecisions: ["approve", "reject"] };
 */
export interface HitlAction {
  name: string;
  args: unknown;
  description: string;
  allowedDecisions: readonly ReviewDecisionType[];
}

/**
 * Builds the interrupt value that asks about `actions`, in LangChain's human-in-the-loop shape (both
 * spellings of its keys).
 *
 * @example
 * const answer = ctx.interrupt(hitlRequest([{ name: "deploy", args: { env: "dev" }, description: "Deploy?", allowedDecisions: ["approve", "reject"] }]));
 */
export function hitlRequest(actions: readonly HitlAction[]): ToolReviewRequest {
  const requests = actions.map((a) => ({ name: a.name, args: a.args, description: a.description }));
  return {
    actionRequests: requests,
    reviewConfigs: actions.map((a) => ({ actionName: a.name, allowedDecisions: [...a.allowedDecisions] })),
    action_requests: requests,
    review_configs: actions.map((a) => ({ action_name: a.name, allowed_decisions: [...a.allowedDecisions] })),
  };
}

/**
 * The decisions of an answer, one per action in order, or why the answer is not that.
 *
 * @example
 * const read: ReadDecisions = readDecisions(answer, actions);
 * if (!read.ok) throw new Error(`Answer again: ${read.reason}`);
 */
export type ReadDecisions = { ok: true; decisions: ReviewDecision[] } | { ok: false; reason: string };

/**
 * Reads an answer to a {@link hitlRequest}: `{ decisions: [...] }` with one decision per action, each
 * of a type the action allows, an `edit` with `editedAction` (or `edited_action`) `{ name, args }`
 * whose args are an object, and a `message` (reject, respond) that is text when given. Anything else is
 * `{ ok: false, reason }` — the caller asks again or refuses; it never acts on it.
 *
 * @example
 * const read = readDecisions({ decisions: [{ type: "approve" }] }, [{ name: "deploy", allowedDecisions: ["approve", "reject"] }]);
 * if (read.ok) read.decisions[0]?.type; // "approve"
 */
export function readDecisions(
  answer: unknown,
  actions: ReadonlyArray<Pick<HitlAction, "name" | "allowedDecisions">>,
): ReadDecisions {
  const decisions = (answer as { decisions?: unknown } | null | undefined)?.decisions;
  if (
    typeof answer !== "object" ||
    answer === null ||
    !Array.isArray(decisions) ||
    decisions.length !== actions.length
  ) {
    return {
      ok: false,
      reason: `The review of ${actions.length} action(s) needs { decisions: [...] } with one decision per action request, in order; got ${show(answer)}.`,
    };
  }
  const out: ReviewDecision[] = [];
  for (const [i, action] of actions.entries()) {
    const decision = decisions[i] as { type?: unknown; message?: unknown } | null | undefined;
    const type = decision?.type;
    if (typeof type !== "string" || !action.allowedDecisions.includes(type as ReviewDecisionType)) {
      return {
        ok: false,
        reason: `Decision ${i + 1} (${show(decision)}) is not one of ${action.allowedDecisions.join(", ")} allowed for "${action.name}".`,
      };
    }
    if (
      (type === "reject" || type === "respond") &&
      decision?.message !== undefined &&
      typeof decision.message !== "string"
    ) {
      return { ok: false, reason: `Decision ${i + 1}: a ${type} message must be text; got ${show(decision.message)}.` };
    }
    if (type === "edit") {
      const edited = editedActionOf(decision as ReviewDecision);
      if (!edited) {
        return {
          ok: false,
          reason: `Decision ${i + 1}: an edit needs editedAction (or edited_action): { name, args } with args an object; got ${show(decision)}.`,
        };
      }
    }
    out.push(decision as ReviewDecision);
  }
  return { ok: true, decisions: out };
}

/**
 * The edited action of an `edit` decision (either spelling), or undefined when it has none or its
 * `args` is not an object.
 *
 * @example
 * editedActionOf({ type: "edit", edited_action: { name: "send", args: { to: "a@b" } } }); // { name: "send", args: { to: "a@b" } }
 */
export function editedActionOf(decision: ReviewDecision): { name: string; args: Record<string, unknown> } | undefined {
  if (decision.type !== "edit") return undefined;
  const edited = (decision.editedAction ?? decision.edited_action) as { name?: unknown; args?: unknown } | undefined;
  if (!edited || typeof edited.name !== "string") return undefined;
  const args = edited.args ?? {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  return { name: edited.name, args: args as Record<string, unknown> };
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
