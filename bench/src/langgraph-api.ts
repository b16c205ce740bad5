import * as langgraph from "@langchain/langgraph";
import * as compat from "@trellis/langgraph";
import { type LangGraphSaverHandle, langGraphSaver, trellisSaver } from "./savers.js";
import type { Runtime, SaverKind } from "./workload.js";

/** LangGraph.js's API as a workload's LangGraph implementation imports it. */
export type LangGraphApi = typeof langgraph;

/**
 * The module a LangGraph.js implementation runs on: `@langchain/langgraph`, or for the `compat`
 * runtime `@trellis/langgraph` — the same program with only its import changed.
 */
export function langGraphApi(runtime: Runtime): LangGraphApi {
  return runtime === "compat" ? (compat as unknown as LangGraphApi) : langgraph;
}

/** The saver of a LangGraph.js implementation: LangGraph.js's own, or a Trellis saver under the compat layer. */
export async function langGraphApiSaver(
  runtime: Runtime,
  kind: SaverKind,
  dir: string,
  threadIds: readonly string[],
): Promise<LangGraphSaverHandle> {
  if (runtime !== "compat") return langGraphSaver(kind, dir);
  const handle = trellisSaver(kind, dir);
  return {
    saver: handle.saver as unknown as LangGraphSaverHandle["saver"],
    bytes: () => handle.bytes(threadIds),
    dispose: () => handle.dispose(),
  };
}
