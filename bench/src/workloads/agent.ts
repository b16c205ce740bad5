import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { channel, END, START, StateGraph } from "@trellis/core";
import { floorStore } from "../floor-store.js";
import { langGraphApi, langGraphApiSaver } from "../langgraph-api.js";
import { trellisSaver } from "../savers.js";
import {
  fakeUuid,
  type Impl,
  type MakeContext,
  prng,
  type Runtime,
  type SaverKind,
  saverLabel,
  type Workload,
} from "../workload.js";

/**
 * (b) A tool-calling agent loop: a fake model that answers at once with one tool call per round, a tool
 * node that answers each call, for 50 rounds, then a final answer. The payload is LangGraph's own
 * react-agent benchmark's: arguments of a UUID ×100 (~3.6 KB) and results of the query ×10 (~36 KB), so
 * the final message list is ~1.9 MiB. Stresses the messages channel and, with a saver, how much of the
 * growing list each checkpoint stores.
 */
export function agentWorkload(saver: SaverKind): Workload {
  return {
    id: `b-agent/${saver}`,
    title: `(b) 50-round tool agent, ${saverLabel(saver)}`,
    group: "b",
    saver,
    runs:
      saver === "none" ? { full: 20, quick: 7 } : saver === "memory" ? { full: 10, quick: 5 } : { full: 7, quick: 3 },
    warmup: { full: 2, quick: 1 },
    units: { count: 101, name: "step" },
    make: (runtime, ctx) => makeAgent(runtime, saver, ctx),
    digest: (state, runtime) => digestMessages(state, runtime),
    compat: true,
  };
}

interface ScriptedCall {
  id: string;
  name: string;
  query: string;
}

interface Script {
  /** One entry per model turn: the calls of that turn, or none for the final answer. */
  turns: Array<{ id: string; calls: ScriptedCall[] }>;
  toolMessageIds: string[];
  humanId: string;
  finalAnswer: string;
}

/** The model's replies and every id, made once from a seed so all runtimes produce identical state. */
function makeScript(rounds: number): Script {
  const next = prng(42);
  const tool = fakeUuid(next);
  const turns: Script["turns"] = [];
  const toolMessageIds: string[] = [];
  for (let i = 0; i < rounds; i++) {
    turns.push({ id: fakeUuid(next), calls: [{ id: fakeUuid(next), name: tool, query: fakeUuid(next).repeat(100) }] });
    toolMessageIds.push(fakeUuid(next));
  }
  turns.push({ id: fakeUuid(next), calls: [] });
  return { turns, toolMessageIds, humanId: fakeUuid(next), finalAnswer: "answer".repeat(100) };
}

function toolResult(query: string): string {
  return `result for query: ${query}`.repeat(10);
}

async function makeAgent(runtime: Runtime, saverKind: SaverKind, ctx: MakeContext): Promise<Impl> {
  const script = makeScript(ctx.tiny ? 3 : 50);
  const recursionLimit = script.turns.length * 2 + 10;
  if (runtime === "trellis") return trellisAgent(script, saverKind, ctx, recursionLimit);
  if (runtime === "langgraph" || runtime === "compat") {
    return langGraphAgent(runtime, script, saverKind, ctx, recursionLimit);
  }
  return floorAgent(script, saverKind, ctx);
}

interface TrellisToolCall {
  id: string;
  name: string;
  args: { query: string };
}

/** An OpenAI-shaped message, as `@trellis/models` defines it. */
interface Msg {
  id: string;
  role: string;
  content: string;
  toolCalls?: TrellisToolCall[];
  toolCallId?: string;
  name?: string;
}

function trellisAgent(script: Script, saverKind: SaverKind, ctx: MakeContext, recursionLimit: number): Impl {
  return {
    async trial() {
      let turn = 0;
      let toolMessage = 0;
      const model = async (_messages: Msg[]): Promise<Msg> => {
        const t = script.turns[turn++ % script.turns.length] as Script["turns"][number];
        if (t.calls.length === 0) return { id: t.id, role: "assistant", content: script.finalAnswer };
        const toolCalls: TrellisToolCall[] = t.calls.map((c) => ({ id: c.id, name: c.name, args: { query: c.query } }));
        return { id: t.id, role: "assistant", content: "", toolCalls };
      };
      const graph = new StateGraph({ messages: channel.messages<Msg>() })
        .addNode("agent", async (s) => ({ messages: [await model(s.messages)] }))
        .addNode("tools", async (s) => {
          const last = s.messages[s.messages.length - 1] as Msg;
          const results = (last.toolCalls ?? []).map((call) => ({
            id: script.toolMessageIds[toolMessage++] as string,
            role: "tool",
            toolCallId: call.id,
            name: call.name,
            content: toolResult(call.args.query),
          }));
          return { messages: results };
        })
        .addEdge(START, "agent")
        .addConditionalEdges("agent", (s) => {
          const last = s.messages[s.messages.length - 1];
          return last?.toolCalls && last.toolCalls.length > 0 ? "tools" : END;
        })
        .addEdge("tools", "agent");
      const handle = trellisSaver(saverKind, ctx.tmpDir);
      const compiled = graph.compile(handle.saver ? { checkpointer: handle.saver } : {});
      const input = { messages: [{ id: script.humanId, role: "user", content: "hi?" }] };
      return {
        run: () => compiled.invoke(input, { threadId: "agent", recursionLimit }),
        storedBytes: () => handle.bytes(["agent"]),
        dispose: () => handle.dispose(),
      };
    },
  };
}

function langGraphAgent(
  runtime: Runtime,
  script: Script,
  saverKind: SaverKind,
  ctx: MakeContext,
  recursionLimit: number,
): Impl {
  const { END: LG_END, START: LG_START, StateGraph: LgStateGraph, MessagesAnnotation } = langGraphApi(runtime);
  return {
    async trial() {
      let turn = 0;
      let toolMessage = 0;
      const model = async (_messages: BaseMessage[]): Promise<AIMessage> => {
        const t = script.turns[turn++ % script.turns.length] as Script["turns"][number];
        if (t.calls.length === 0) return new AIMessage({ id: t.id, content: script.finalAnswer });
        return new AIMessage({
          id: t.id,
          content: "",
          tool_calls: t.calls.map((c) => ({ id: c.id, name: c.name, args: { query: c.query }, type: "tool_call" })),
        });
      };
      const graph = new LgStateGraph(MessagesAnnotation)
        .addNode("agent", async (s) => ({ messages: [await model(s.messages)] }))
        .addNode("tools", async (s) => {
          const last = s.messages[s.messages.length - 1] as AIMessage;
          const results = (last.tool_calls ?? []).map(
            (call) =>
              new ToolMessage({
                id: script.toolMessageIds[toolMessage++] as string,
                tool_call_id: call.id as string,
                name: call.name,
                content: toolResult((call.args as { query: string }).query),
              }),
          );
          return { messages: results };
        })
        .addEdge(LG_START, "agent")
        .addConditionalEdges("agent", (s) => {
          const last = s.messages[s.messages.length - 1] as AIMessage | undefined;
          return last?.tool_calls && last.tool_calls.length > 0 ? "tools" : LG_END;
        })
        .addEdge("tools", "agent");
      const handle = await langGraphApiSaver(runtime, saverKind, ctx.tmpDir, ["agent"]);
      const compiled = graph.compile(handle.saver ? { checkpointer: handle.saver } : {});
      const input = { messages: [new HumanMessage({ id: script.humanId, content: "hi?" })] };
      const config = { configurable: { thread_id: "agent" }, recursionLimit };
      return {
        run: () => compiled.invoke(input, config),
        storedBytes: () => handle.bytes(),
        dispose: () => handle.dispose(),
      };
    },
  };
}

function floorAgent(script: Script, saverKind: SaverKind, ctx: MakeContext): Impl {
  return {
    async trial() {
      const store = floorStore(saverKind, ctx.tmpDir);
      return {
        async run() {
          let turn = 0;
          let toolMessage = 0;
          const model = async (_messages: Msg[]): Promise<Msg> => {
            const t = script.turns[turn++] as Script["turns"][number];
            if (t.calls.length === 0) return { id: t.id, role: "assistant", content: script.finalAnswer };
            const toolCalls = t.calls.map((c) => ({ id: c.id, name: c.name, args: { query: c.query } }));
            return { id: t.id, role: "assistant", content: "", toolCalls };
          };
          const tools = async (calls: TrellisToolCall[]): Promise<Msg[]> =>
            calls.map((call) => ({
              id: script.toolMessageIds[toolMessage++] as string,
              role: "tool",
              toolCallId: call.id,
              name: call.name,
              content: toolResult(call.args.query),
            }));
          const human = { id: script.humanId, role: "user", content: "hi?" };
          const messages: Msg[] = [human];
          store.save("agent", { messages: [human] });
          for (;;) {
            const reply = await model(messages);
            messages.push(reply);
            store.save("agent", { messages: [reply] });
            if (!reply.toolCalls || reply.toolCalls.length === 0) break;
            const results = await tools(reply.toolCalls);
            messages.push(...results);
            store.save("agent", { messages: results });
          }
          return { messages };
        },
        storedBytes: () => store.bytes(),
        dispose: () => store.dispose(),
      };
    },
  };
}

/** Messages of any runtime as `{ id, role, content, calls }`. */
function digestMessages(state: unknown, runtime: Runtime): unknown {
  const messages = (state as { messages: unknown[] }).messages;
  return messages.map((m) => {
    if (runtime === "langgraph" || runtime === "compat") {
      const msg = m as BaseMessage & { tool_calls?: Array<{ id?: string; args: unknown }>; tool_call_id?: string };
      const type = msg.getType();
      const role = type === "human" ? "user" : type === "ai" ? "assistant" : type;
      return {
        id: msg.id,
        role,
        content: msg.content,
        calls: (msg.tool_calls ?? []).map((c) => ({ id: c.id, args: c.args })),
        toolCallId: msg.tool_call_id,
      };
    }
    const msg = m as Msg;
    return {
      id: msg.id,
      role: msg.role,
      content: msg.content,
      calls: (msg.toolCalls ?? []).map((c) => ({ id: c.id, args: c.args })),
      toolCallId: msg.toolCallId,
    };
  });
}
