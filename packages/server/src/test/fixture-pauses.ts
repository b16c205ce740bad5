import { channel, END, START, StateGraph } from "@trellis/core";
import { askChoice } from "@trellis/protocol";

/**
 * One declared pause (`askChoice` from `@trellis/protocol`): every door reads it as the same choice.
 *
 * @example
 * // trellis.json: { "graphs": { "pick": { "module": "./src/test/fixture-pauses.ts", "graph": "choiceGraph" } } }
 */
export function choiceGraph() {
  return new StateGraph({ messages: channel.messages(), picked: channel.value("") }, { name: "pick" })
    .addNode("pick", (_s, ctx) => ({
      picked: ctx.interrupt<string>(
        askChoice("Which site?", [
          { key: "n", label: "North" },
          { key: "s", label: "South" },
        ]),
      ),
    }))
    .addEdge(START, "pick")
    .addEdge("pick", END)
    .compile();
}
