import type { Workload } from "../workload.js";
import { agentWorkload } from "./agent.js";
import { chainWorkload } from "./chain.js";
import { fanoutWorkload } from "./fanout.js";
import { resumeWorkload } from "./resume.js";
import { subgraphWorkload } from "./subgraph.js";
import { wideDictWorkload } from "./wide-dict.js";
import { wideStateWorkload } from "./wide-state.js";

/** Every workload of the table, in the order it prints. */
export function allWorkloads(): Workload[] {
  return [
    chainWorkload("none"),
    chainWorkload("memory"),
    chainWorkload("memory", true),
    agentWorkload("none"),
    agentWorkload("memory"),
    agentWorkload("sqlite"),
    agentWorkload("sqlite-full"),
    fanoutWorkload(100),
    // the compat table's measure of the layer alone at 100, as at 1,000 and 3,000
    fanoutWorkload(100, { fold: true }),
    fanoutWorkload(1000),
    fanoutWorkload(1000, { fold: true }),
    fanoutWorkload(3000),
    // the compat table's measure of the layer alone at 3,000: LangGraph.js's program folds with a
    // quadratic concat, which native Trellis appends
    fanoutWorkload(3000, { fold: true }),
    wideStateWorkload("memory"),
    resumeWorkload("memory"),
    resumeWorkload("sqlite"),
    resumeWorkload("sqlite-full"),
    subgraphWorkload(),
    wideDictWorkload("none"),
    wideDictWorkload("memory"),
  ];
}

/** The workload with this id. */
export function workloadById(id: string): Workload {
  const found = allWorkloads().find((w) => w.id === id);
  if (!found)
    throw new Error(
      `No workload "${id}". Known: ${allWorkloads()
        .map((w) => w.id)
        .join(", ")}`,
    );
  return found;
}
