// The graph module the crash test serves: the app's graph on the offline models, where one agent's first
// model call never returns (and says so on stdout) when INSPECTION_TEST_HANG names that agent. The test
// kills the server process at that point, so the kill lands inside a turn at a known step, not after a
// guessed number of milliseconds.
import type { ChatModel } from "@trellis/models";
import { AGENT_IDS, type AgentId } from "../agents/agent-definitions.js";
import type { InspectionGraph } from "../agents/inspection-graph.js";
import { createInspectionReporter } from "../inspection-reporter.js";
import { createOfflineModels } from "../offline/offline-models.js";
import { silentLogger } from "../orchestrator/logger.js";

export { createRoutes } from "../server-entry.js";

/** The line the child prints when the hanging agent was called: the test kills the process on it. */
export const KILL_POINT = "KILL-POINT";

function hangOnFirstCall(model: ChatModel, agent: AgentId): ChatModel {
  let called = false;
  const hang = (): Promise<never> => {
    called = true;
    process.stdout.write(`${KILL_POINT} ${agent}\n`);
    return new Promise<never>(() => {});
  };
  return {
    provider: model.provider,
    model: model.model,
    invoke: (messages, options) => (called ? model.invoke(messages, options) : hang()),
    stream: (messages, options) =>
      called ? model.stream(messages, options) : { [Symbol.asyncIterator]: () => ({ next: hang }) },
  };
}

/**
 * The `graph` export for the crash test's `trellis.json`.
 *
 * @example
 * // trellis.json: { "graphs": { "inspection-reporter": { "module": ".../crash-app.ts", "graph": "buildGraph", "routes": "createRoutes" } } }
 */
export async function buildGraph(): Promise<InspectionGraph> {
  const models: Record<AgentId, ChatModel> = createOfflineModels();
  const hang = process.env.INSPECTION_TEST_HANG;
  for (const id of AGENT_IDS) if (id === hang) models[id] = hangOnFirstCall(models[id], id);
  const app = await createInspectionReporter({ models, logger: silentLogger });
  return app.graph;
}
