import type { CheckpointSaver } from "@trellis/checkpoint";
import {
  Command,
  type CompiledGraph,
  channel,
  END,
  GraphValidationError,
  type PausedInputPolicy,
  START,
  type StandardSchemaV1,
  StateGraph,
  type StateSchema,
} from "@trellis/core";
import { type Message, type Tool, tool } from "@trellis/models";

/**
 * The state of a multi-agent network: the conversation and the agent that has it.
 *
 * @example
 * const network = createAgentNetwork({ agents: { triage, billing }, defaultAgent: "triage" });
 * const out = await network.invoke({ messages: [userMessage("My invoice is wrong")] }, { threadId });
 * out.activeAgent; // "billing" once triage handed over
 */
export const agentNetworkSchema = {
  messages: channel.messages<Message>(),
  activeAgent: channel.value<string | undefined>(),
};

/**
 * A tool that hands the conversation to another agent of the parent graph: the calling agent's
 * subgraph stops, the parent records `activeAgent` and runs `agent` next.
 *
 * @example
 * const toReporting = createHandoffTool("reporting-agent", { description: "Write inspection reports." });
 */
export function createHandoffTool(
  agent: string,
  options: { name?: string; description?: string } = {},
): Tool<Record<string, unknown>, Command> {
  const name = options.name ?? `transfer_to_${agent.replace(/-agent$/, "").replace(/[^a-zA-Z0-9_-]/g, "_")}`;
  return tool({
    name,
    description: options.description ?? `Hand the conversation to ${agent}.`,
    parameters: { type: "object", properties: {} },
    fn: () => new Command({ goto: agent, graph: Command.PARENT, update: { activeAgent: agent } }),
  });
}

/**
 * Options of {@link createAgentNetwork}.
 *
 * @example
 * const options: AgentNetworkOptions = {
 *   agents: { triage, billing },
 *   defaultAgent: "triage",
 *   checkpointer: new MemorySaver(),
 *   onInputWhilePaused: "resume",
 * };
 * const network = createAgentNetwork(options);
 */
export interface AgentNetworkOptions {
  /** Agent name → its compiled graph (e.g. from createReactAgent). */
  agents: Record<string, CompiledGraph<StateSchema>>;
  /** Who takes a conversation that has no active agent yet. */
  defaultAgent: string;
  checkpointer?: CheckpointSaver;
  name?: string;
  /**
   * What a message does while an agent waits on an interrupt (see `PausedInputPolicy` in
   * `@trellis/core`): `"restart"` (default), `"resume"` — the message answers the agent's question —
   * or `"reject"`.
   */
  onInputWhilePaused?: PausedInputPolicy;
}

/**
 * A parent graph over agents that hand off to each other with {@link createHandoffTool}. Each new input
 * goes to the agent that had the conversation last (`activeAgent`, persisted in the thread), so a reply
 * to a specialist's question reaches that specialist.
 *
 * @example
 * const network = createAgentNetwork({ agents: { general, reporting }, defaultAgent: "general", checkpointer });
 */
export function createAgentNetwork(options: AgentNetworkOptions): CompiledGraph<typeof agentNetworkSchema> {
  const names = Object.keys(options.agents);
  if (!names.includes(options.defaultAgent)) {
    throw new GraphValidationError(
      `defaultAgent "${options.defaultAgent}" is not one of the agents: ${names.join(", ")}.`,
    );
  }
  // activeAgent names one of the agents: a caller that sets it to anything else is refused (400 over
  // the API), and getSchemas() shows the names
  const schema = {
    ...agentNetworkSchema,
    activeAgent: channel.value<string | undefined>(undefined, {
      schema: agentNameSchema(names),
      jsonSchema: { anyOf: [{ type: "string", enum: names }, { type: "null" }] },
    }),
  };
  const builder = new StateGraph(schema, { name: options.name ?? "agents" });
  for (const name of names) {
    builder.addNode(name, options.agents[name] as CompiledGraph<StateSchema>, {
      ends: names.filter((n) => n !== name),
    });
    builder.addEdge(name, END);
  }
  builder.addConditionalEdges(
    START,
    (s) => (s.activeAgent && names.includes(s.activeAgent) ? s.activeAgent : options.defaultAgent),
    names,
  );
  return builder.compile({
    ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}),
    ...(options.onInputWhilePaused ? { onInputWhilePaused: options.onInputWhilePaused } : {}),
  });
}

/** A Standard Schema accepting one of `names`, or nothing / null (the default agent takes it). */
function agentNameSchema(names: readonly string[]): StandardSchemaV1<unknown, string | undefined> {
  const message = `must be one of the agents: ${names.join(", ")}`;
  return {
    "~standard": {
      version: 1,
      vendor: "trellis",
      validate: (value) =>
        value === undefined || value === null || (typeof value === "string" && names.includes(value))
          ? { value: value as string | undefined }
          : { issues: [{ message }] },
    },
  };
}
