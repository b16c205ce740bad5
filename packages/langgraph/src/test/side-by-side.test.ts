import { describe, expect, it } from "vitest";
import { observe } from "./observe.js";
import { configLoop } from "./programs/config-loop.js";
import { mapReduce } from "./programs/map-reduce.js";
import { memoryAgent } from "./programs/memory-agent.js";
import { implementations, type Modules } from "./programs/modules.js";
import { approvalLoop, prebuiltReactAgent } from "./programs/react-agent.js";
import { subgraphInterrupt } from "./programs/subgraph-interrupt.js";

const programs: Record<string, (m: Modules) => Promise<unknown>> = {
  "a config-driven loop": configLoop,
  "map-reduce with Send": mapReduce,
  "a subgraph with an interrupt": subgraphInterrupt,
  "the prebuilt ReAct agent with an approval before its tools": prebuiltReactAgent,
  "a ReAct loop whose tool asks for approval in parallel": approvalLoop,
  "a memory agent with a store and config": memoryAgent,
};

describe("LangGraph.js programs run the same on @trellis/langgraph", async () => {
  const [[, langgraph], [, trellis]] = (await implementations()) as [[string, Modules], [string, Modules]];
  for (const [name, program] of Object.entries(programs)) {
    it(name, async () => {
      const expected = observe(await program(langgraph));
      const actual = observe(await program(trellis));
      expect(actual).toEqual(expected);
    });
  }
});
