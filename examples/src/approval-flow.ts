/**
 * A small human-in-the-loop graph, end to end: draft a text once (a durable step), pause for a
 * reviewer, apply their answer, pause again for approval, publish. Run it with `npm start`.
 */
import { Command, channel, END, interrupt, MemorySaver, START, StateGraph } from "@trellis/core";
import { z } from "zod";

// Typed keys: what a caller writes (the input, updateState) must fit, else INVALID_STATE naming the key
// and nothing is written; getSchemas() shows them as JSON Schema.
const schema = {
  request: channel.value("", { schema: z.string() }),
  draft: channel.value("", { schema: z.string() }),
  revisions: channel.reduce((a: number, b: number) => a + b, 0, { schema: z.number().int().min(0) }),
  status: channel.value<"drafting" | "approved" | "rejected">("drafting", {
    schema: z.enum(["drafting", "approved", "rejected"]),
  }),
  log: channel.append<string>(),
};

let modelCalls = 0;
async function fakeModel(prompt: string): Promise<string> {
  modelCalls++;
  return `DRAFT for "${prompt}": 1) switch off the machine, 2) lock it out, 3) check zero energy.`;
}

export function buildGraph(checkpointer = new MemorySaver()) {
  // a caller gives the request; draft, revisions, status and log are the graph's own working keys
  return new StateGraph(schema, { name: "approval-flow", input: ["request"] })
    .addNode("write", async (s, ctx) => {
      const draft = await ctx.step("model", () => fakeModel(s.request));
      return { draft, log: [`write: drafted ${draft.length} chars`] };
    })
    .addNode("review", (s) => {
      const feedback = interrupt<string>({ question: "Any changes to the draft?", draft: s.draft });
      if (!feedback) return { log: ["review: no changes"] };
      return { draft: `${s.draft} (${feedback})`, revisions: 1, log: [`review: applied "${feedback}"`] };
    })
    .addNode("approve", (s) => {
      const ok = interrupt<boolean>({ question: "Publish this?", draft: s.draft });
      return { status: ok ? "approved" : "rejected", log: [`approve: ${ok ? "yes" : "no"}`] };
    })
    .addEdge(START, "write")
    .addEdge("write", "review")
    .addEdge("review", "approve")
    .addEdge("approve", END)
    .compile({ checkpointer });
}

async function main(): Promise<void> {
  const graph = buildGraph();
  const config = { threadId: "demo-1" };
  console.log("Graph:\n" + graph.drawMermaid());

  let result = await graph.invoke({ request: "lockout procedure for the press" }, config);
  console.log("paused:", result.__interrupt__?.[0]?.value);

  result = await graph.invoke(new Command({ resume: "add PPE" }), config);
  console.log("paused:", result.__interrupt__?.[0]?.value);

  result = await graph.invoke(new Command({ resume: true }), config);
  console.log("done:", { status: result.status, revisions: result.revisions, draft: result.draft });
  console.log("log:", result.log);
  console.log(`model calls: ${modelCalls} (one draft, recorded as a durable step)`);
  const history = [];
  for await (const s of graph.getStateHistory(config)) history.push(`${s.metadata?.source}@${s.metadata?.step}`);
  console.log("checkpoints (newest first):", history.join(", "));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
