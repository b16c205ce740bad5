/**
 * A two-question interview in three variants, one per paused-input policy, and an app whose own routes
 * drive it through the server's run service: the fixtures of the cross-door conformance suite.
 */
import { channel, END, type PausedInputPolicy, START, StateGraph } from "@trellis/core";
import { Hono } from "hono";
import type { AppRoutesContext } from "../assistants/graph-registry.js";

type Msg = { id?: string; role: string; content: unknown };

/** The text of the last user message of an input, the answer under the `resume` policy. */
const lastUserText = (input: Record<string, unknown>) =>
  String((input.messages as Msg[] | undefined)?.filter((m) => m.role === "user").at(-1)?.content ?? "");

function interview(policy: PausedInputPolicy) {
  return new StateGraph({ messages: channel.messages<Msg>(), name: channel.value(""), city: channel.value("") })
    .addNode("name", (_s, ctx) => {
      const name = ctx.interrupt<string>({ question: "Your name?" });
      return { name, messages: [{ role: "assistant", content: `Hello ${name}` }] };
    })
    .addNode("city", (s, ctx) => {
      const city = ctx.interrupt<string>({ question: `Where do you live, ${s.name}?` });
      return { city, messages: [{ role: "assistant", content: `${s.name} from ${city}` }] };
    })
    .addEdge(START, "name")
    .addEdge("name", "city")
    .addEdge("city", END)
    .compile({ name: "interview", onInputWhilePaused: policy });
}

export const restartInterview = () => interview("restart");
export const resumeInterview = () => interview({ resume: lastUserText });
export const rejectInterview = () => interview("reject");

/**
 * The app's own chat route: `POST /apps/<id>/chat { threadId, message }` runs one turn through
 * `ctx.runs` (whatever the graph's policy makes of it) and answers what the thread asks now.
 */
export function interviewRoutes(ctx: AppRoutesContext) {
  const app = new Hono();
  app.post("/chat", async (c) => {
    const runs = ctx.runs;
    if (!runs) return c.json({ error: "served outside a server" }, 500);
    const body = (await c.req.json()) as { threadId: string; message?: string; answer?: string };
    const end = await runs.invoke({
      assistantId: ctx.assistantId,
      threadId: body.threadId,
      as: { user: (c as unknown as { get(k: string): string | null }).get("user") ?? null },
      ...(body.answer !== undefined
        ? { command: { resume: body.answer } }
        : { input: { messages: [{ role: "user", content: body.message ?? "" }] } }),
      ifNotExists: "create",
      multitaskStrategy: "enqueue",
    });
    return c.json({ status: end.status, values: end.values, asks: end.interrupts.map((i) => i.value) });
  });
  return app;
}

/** Review (a pause), a slow step, approval (a pause), publish: a resume race has 1.5 s to happen. */
export function slowApproval() {
  return new StateGraph({ log: channel.append<string>(), published: channel.value(false) })
    .addNode("review", (_s, ctx) => ({ log: [`review: ${ctx.interrupt<string>({ question: "Changes?" })}`] }))
    .addNode("prepare", async () => {
      await new Promise((r) => setTimeout(r, 1_500));
      return { log: ["prepared"] };
    })
    .addNode("approve", (_s, ctx) => {
      const ok = ctx.interrupt<unknown>({ question: "Publish?" });
      return { log: [`approve: ${String(ok)}`], published: Boolean(ok) };
    })
    .addEdge(START, "review")
    .addEdge("review", "prepare")
    .addEdge("prepare", "approve")
    .addEdge("approve", END)
    .compile({ name: "slow-approval" });
}

/**
 * Review (a pause), then approval (a pause) at once, then publish: answering the review reaches the
 * approval within milliseconds, so a second answer to the review bound late would answer the approval.
 */
export function twoGates() {
  return new StateGraph({ log: channel.append<string>(), published: channel.value(false) })
    .addNode("review", (_s, ctx) => ({ log: [`review: ${ctx.interrupt<string>({ question: "Changes?" })}`] }))
    .addNode("approve", (_s, ctx) => {
      const ok = ctx.interrupt<unknown>({ question: "Publish?" });
      return { log: [`approve: ${String(ok)}`], published: true };
    })
    .addEdge(START, "review")
    .addEdge("review", "approve")
    .addEdge("approve", END)
    .compile({ name: "two-gates" });
}

/** A graph whose `quiz` node is a compiled graph with a node that is a graph too. */
export function nestedQuiz() {
  const inner = new StateGraph({ score: channel.value(0) })
    .addNode("grade", () => ({ score: 1 }))
    .addEdge(START, "grade")
    .compile({ name: "grader" });
  const quiz = new StateGraph({ score: channel.value(0), asked: channel.value(0) })
    .addNode("grading", inner)
    .addEdge(START, "grading")
    .compile({ name: "quiz" });
  return new StateGraph({ score: channel.value(0) })
    .addNode("quiz", quiz)
    .addEdge(START, "quiz")
    .compile({ name: "course" });
}
