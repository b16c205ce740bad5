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
        messages: [{ role: "user", content: message }],
      };
    }
    case "infra-pipeline":
      return {
        messages: [{ role: "user", content: "create an S3 bucket for logs in prd with versioning" }],
        environment: "prd",
      };
    case "tutor":
      return { messages: [{ role: "user", content: "Hazme un test de 3 preguntas sobre contenedores" }] };
    case "market-assistant":
      return { messages: [{ role: "user", content: "Tell me about Hayleys" }] };
    case "inspection-reporter":
      return {
        messages: [{ role: "user", content: "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854" }],
      };
    default:
      if (stateKeys.includes("messages")) return { messages: [{ role: "user", content: "Hello" }] };
      return {};
  }
}
