/**
 * What a person may do with a paused tool call in LangChain's human-in-the-loop protocol (Agent Inbox).
 *
 * @example
 * const config: HumanInterruptConfig = { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: false };
 */
export interface HumanInterruptConfig {
  allow_ignore: boolean;
  allow_respond: boolean;
  allow_edit: boolean;
  allow_accept: boolean;
}

/**
 * The action under review: a tool name (or any action) and its arguments.
 *
 * @example
 * const request: ActionRequest = { action: "send_email", args: { to: "ana@example.com" } };
 */
export interface ActionRequest {
  action: string;
  args: Record<string, unknown>;
}

/**
 * The value to `interrupt()` with so Agent Inbox and agent-chat-ui show an approval form.
 *
 * @example
 * const [answer] = interrupt<HumanInterrupt[], HumanResponse[]>([{ action_request, config, description: "Send it?" }]);
 */
export interface HumanInterrupt {
  action_request: ActionRequest;
  config: HumanInterruptConfig;
  description?: string;
}

/**
 * The person's answer: accept, ignore, a text response, or edited arguments.
 *
 * @example
 * if (answer.type === "edit") args = (answer.args as ActionRequest).args;
 */
export interface HumanResponse {
  type: "accept" | "ignore" | "response" | "edit";
  args: null | string | ActionRequest;
}
