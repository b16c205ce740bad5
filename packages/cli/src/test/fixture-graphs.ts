import { channel, END, MemorySaver, START, StateGraph } from "@trellis/core";
import { askForm } from "@trellis/protocol";

/**
 * A graph with a static breakpoint before `publish` and no interrupt value: the terminal asks for a
 * JSON state update there.
 *
 * @example
 * await breakpointGraph().invoke({ text: "hi" }, { threadId: "t" }); // pauses before publish
 */
export function breakpointGraph() {
  return new StateGraph({ text: channel.value(""), published: channel.value(false), note: channel.value("") })
    .addNode("draft", (s) => ({ text: `${s.text}!` }))
    .addNode("publish", (s) => ({ published: true, note: s.note || "no note" }))
    .addEdge(START, "draft")
    .addEdge("draft", "publish")
    .addEdge("publish", END)
    .compile({ checkpointer: new MemorySaver(), interruptBefore: ["publish"] });
}

/**
 * A graph whose two pauses declare how they ask (`@trellis/protocol`): a form with a JSON Schema, then
 * LangChain's human-in-the-loop request for one action. Its state keys are its own: no door knows them.
 *
 * @example
 * await pauseKindsGraph().invoke({ topic: "x" }, { threadId: "t" }); // pauses at the form
 */
export function pauseKindsGraph() {
  const schema = {
    topic: channel.value(""),
    site: channel.value<Record<string, unknown> | null>(null),
    verdict: channel.value<unknown>(null),
  };
  return new StateGraph(schema)
    .addNode("ask", (_s, ctx) => ({
      site: ctx.interrupt<Record<string, unknown>>(
        askForm("About the site", {
          type: "object",
          properties: { address: { type: "string", title: "Address" }, visits: { type: "integer" } },
          required: ["address"],
        }),
      ),
    }))
    .addNode("review", (s, ctx) => ({
      verdict: ctx.interrupt({
        action_requests: [{ name: "file_report", args: { topic: s.topic }, description: "File the report?\n\nhelp" }],
        review_configs: [{ action_name: "file_report", allowed_decisions: ["approve", "reject"] }],
      }),
    }))
    .addEdge(START, "ask")
    .addEdge("ask", "review")
    .addEdge("review", END)
    .compile({ checkpointer: new MemorySaver() });
}
