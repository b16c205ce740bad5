import { describe, expect, it } from "vitest";
import { observe } from "./observe.js";
import { configLoop } from "./programs/config-loop.js";
import { functionalWorkflow } from "./programs/functional.js";
import { history } from "./programs/history.js";
import { mapReduce } from "./programs/map-reduce.js";
import { memoryAgent } from "./programs/memory-agent.js";
import { messageRoundTrip } from "./programs/message-round-trip.js";
import { messagesWithoutIds } from "./programs/messages-without-ids.js";
import { implementations, type Modules } from "./programs/modules.js";
import { approvalLoop, prebuiltReactAgent } from "./programs/react-agent.js";
import { streamingEvents, streamingModes, streamingSubgraphs } from "./programs/streaming.js";
import { structuredResponse } from "./programs/structured-response.js";
import { subgraphInterrupt } from "./programs/subgraph-interrupt.js";
import { taskInput } from "./programs/task-input.js";

const programs: Record<string, (m: Modules) => Promise<unknown>> = {
  "a config-driven loop": configLoop,
  "map-reduce with Send": mapReduce,
  "a subgraph with an interrupt": subgraphInterrupt,
  "the prebuilt ReAct agent with an approval before its tools": prebuiltReactAgent,
  "a ReAct loop whose tool asks for approval in parallel": approvalLoop,
  "the prebuilt ReAct agent with responseFormat (structured output)": structuredResponse,
  "a memory agent with a store and config": memoryAgent,
  "messages round-trip through the state (content blocks, tool calls, extra fields, serialized input)":
    messageRoundTrip,
  "messages written without ids keep their fields (status, artifact) for routers, nodes and a resume":
    messagesWithoutIds,
  "streaming in each mode (values, updates, custom, messages, debug, several)": streamingModes,
  "streaming with subgraphs": streamingSubgraphs,
  "streamEvents v2": streamingEvents,
  "history: getState, updateState, getStateHistory and a replay": history,
  "an entrypoint/task workflow with an interrupt and getPreviousState": functionalWorkflow,
  "getCurrentTaskInput in a ToolNode's tool, a node, a router and a Send task; outside a node it throws": taskInput,
};

type View = { next: string[]; step: number; source: string; values: unknown };

/**
 * The differences docs/porting-from-langgraphjs.md lists, applied to what LangGraph.js produced so the
 * rest must match exactly.
 */
const knownDifferences: Record<string, (observed: unknown) => unknown> = {
  // "Routers run after the whole superstep": getCurrentTaskInput() in a router is the state the router
  // reads; in LangGraph it is the input of the node task the router follows (before that node's writes).
  "getCurrentTaskInput in a ToolNode's tool, a node, a router and a Send task; outside a node it throws": (
    observed,
  ) => {
    const o = observed as { routed: string[] };
    const routed = o.routed.map((line) =>
      line.replace(/reads \d+ messages, state (\d+)/, "reads $1 messages, state $1"),
    );
    return { ...o, routed };
  },
  // "One input checkpoint": LangGraph stores the input as two checkpoints (step -1 with next
  // ["__start__"], then step 0 with the input applied); Trellis stores one (step -1, input applied).
  "history: getState, updateState, getStateHistory and a replay": (observed) => {
    const o = observed as { view: View[] };
    const view = o.view
      .filter((v) => !(v.source === "input" && v.next.includes("__start__")))
      .map((v) => (v.source === "loop" && v.step === 0 ? { ...v, source: "input", step: -1 } : v))
      .map((v) => (v.step > 0 ? { ...v, step: v.step - 1 } : v));
    return { ...o, view };
  },
};

describe("LangGraph.js programs run the same on @trellis/langgraph", async () => {
  const [[, langgraph], [, trellis]] = (await implementations()) as [[string, Modules], [string, Modules]];
  for (const [name, program] of Object.entries(programs)) {
    it(name, async () => {
      const observed = observe(await program(langgraph));
      const expected = knownDifferences[name]?.(observed) ?? observed;
      const actual = observe(await program(trellis));
      expect(actual).toEqual(expected);
    });
  }
});
