/**
 * A starting input for the run form: known examples for the reference graphs, else a `messages`
 * template when the graph has messages, else an empty object.
 *
 * @example
 * exampleInput("approval-flow", ["request", "draft"]); // { request: "Lockout procedure for the hydraulic press" }
 */
export function exampleInput(graphId: string, stateKeys: readonly string[]): Record<string, unknown> {
  const suffix = Math.random().toString(36).slice(2, 8);
  switch (graphId) {
    case "approval-flow":
      return { request: "Lockout procedure for the hydraulic press" };
    case "twi-author": {
      const message = "Írj TWI utasítást a csavarok meghúzásáról";
      return {
        conversation_id: `studio-${suffix}`,
        user_id: "studio",
        tenant_id: "local",
        channel: "cli",
        message,
        revision_count: 0,
        status: "processing",
        messages: [{ role: "user", content: message }],
      };
    }
    default:
      if (stateKeys.includes("messages")) return { messages: [{ role: "user", content: "Hello" }] };
      return {};
  }
}
