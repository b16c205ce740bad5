import { describe, expect, it } from "vitest";
import { z } from "zod";
import { invokeTool, runTool, toolOutputText } from "./invoke-tool.js";
import type { ToolCall } from "./messages.js";
import { tool } from "./tool.js";

const getWeather = tool({
  name: "get_weather",
  description: "Weather for a city",
  schema: z.object({ city: z.string(), days: z.number().int().min(1).default(1) }),
  fn: ({ city, days }) => ({ city, days, temp: 18 }),
});

const getGuia = tool({
  name: "get_guia",
  description: "Teaching guide of the current subject",
  schema: z.object({ section: z.string(), asignatura: z.string() }),
  injectState: ["asignatura"],
  fn: ({ section, asignatura }, ctx) => `${asignatura}:${section}:${ctx.toolCall.id}`,
});

const call = (name: string, args: Record<string, unknown>, extra: Partial<ToolCall> = {}): ToolCall => ({
  id: "c1",
  name,
  args,
  ...extra,
});

describe("runTool / invokeTool", () => {
  it("validates, applies schema defaults, runs the tool and answers the call with its JSON output", async () => {
    const outcome = await runTool([getWeather], call("get_weather", { city: "Lima" }));
    expect(outcome.status).toBe("success");
    expect(outcome.status === "success" && outcome.output).toEqual({ city: "Lima", days: 1, temp: 18 });
    expect(outcome.message).toEqual({
      id: expect.any(String),
      role: "tool",
      content: '{"city":"Lima","days":1,"temp":18}',
      toolCallId: "c1",
      name: "get_weather",
    });
  });

  it("turns invalid arguments into an error tool message naming the field, without running the tool", async () => {
    let ran = false;
    const t = tool({ name: "t", description: "d", schema: z.object({ n: z.number() }), fn: () => (ran = true) });
    const message = await invokeTool(t, call("t", { n: "three" }));
    expect(message.status).toBe("error");
    expect(message.content).toMatch(/^Error: invalid arguments for tool "t": n: .*expected number/);
    expect(message.toolCallId).toBe("c1");
    expect(ran).toBe(false);
  });

  it("turns arguments that were not a JSON object into an error the model can act on", async () => {
    const message = await invokeTool([getWeather], call("get_weather", {}, { unparsedArgs: '{"city": Lima' }));
    expect(message.status).toBe("error");
    expect(message.content).toContain("were not a JSON object");
    expect(message.content).toContain('{\\"city\\": Lima');
  });

  it("turns a throwing tool into an error tool message, keeping the error as the cause", async () => {
    const boom = new Error("database unreachable");
    const t = tool({ name: "q", description: "d", schema: z.object({}), fn: () => Promise.reject(boom) });
    const outcome = await runTool(t, call("q", {}));
    expect(outcome.status).toBe("error");
    expect(outcome.message.content).toBe('Error: tool "q" failed: database unreachable');
    expect(outcome.status === "error" && outcome.cause).toBe(boom);
  });

  it("answers an unknown tool name with the list of available tools", async () => {
    const message = await invokeTool([getWeather, getGuia], call("get_wether", {}));
    expect(message.status).toBe("error");
    expect(message.content).toBe('Error: there is no tool named "get_wether". Available tools: get_weather, get_guia.');
  });

  it("injects state keys into hidden arguments and ignores values the model sent for them", async () => {
    const message = await invokeTool(getGuia, call("get_guia", { section: "intro", asignatura: "forged" }), {
      state: { asignatura: "Cálculo", other: 1 },
    });
    expect(message.content).toBe("Cálculo:intro:c1");
  });

  it("reports a missing injected state key as an error naming the state key", async () => {
    const message = await invokeTool(getGuia, call("get_guia", { section: "intro" }), { state: {} });
    expect(message.status).toBe("error");
    expect(message.content).toContain('asignatura (filled from state key "asignatura")');
  });

  it("rethrows errors the caller marks as control flow (interrupts), instead of answering", async () => {
    class GraphInterrupt extends Error {}
    const t = tool({
      name: "ask",
      description: "d",
      schema: z.object({}),
      fn: () => {
        throw new GraphInterrupt("pause");
      },
    });
    await expect(
      invokeTool(t, call("ask", {}), { rethrow: (e) => e instanceof GraphInterrupt }),
    ).rejects.toBeInstanceOf(GraphInterrupt);
  });

  it("rethrows the abort reason when the signal is aborted", async () => {
    const controller = new AbortController();
    const reason = new Error("run cancelled");
    const t = tool({
      name: "slow",
      description: "d",
      schema: z.object({}),
      fn: (_args, ctx) =>
        new Promise((_resolve, reject) => ctx.signal?.addEventListener("abort", () => reject(ctx.signal?.reason))),
    });
    const pending = invokeTool(t, call("slow", {}), { signal: controller.signal });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it("checks only `required` keys for JSON-Schema tools", async () => {
    const ping = tool({
      name: "ping",
      description: "d",
      parameters: { type: "object", properties: { host: { type: "string" } }, required: ["host"] },
      fn: (args) => `pong ${String(args.host)}`,
    });
    expect((await invokeTool(ping, call("ping", {}))).content).toContain("missing required argument(s) host");
    expect((await invokeTool(ping, call("ping", { host: "a" }))).content).toBe("pong a");
  });

  it("gives the tool its context: state, signal and caller context", async () => {
    const controller = new AbortController();
    const t = tool({
      name: "ctx",
      description: "d",
      schema: z.object({}),
      fn: (_a, ctx) => ({ state: ctx.state, aborted: ctx.signal === controller.signal, ctx: ctx.context }),
    });
    const message = await invokeTool(t, call("ctx", {}), {
      state: { k: 1 },
      signal: controller.signal,
      context: { store: "s" },
    });
    expect(JSON.parse(message.content)).toEqual({ state: { k: 1 }, aborted: true, ctx: { store: "s" } });
  });
});

describe("toolOutputText", () => {
  it("keeps strings, maps undefined to empty, serialises the rest", () => {
    expect(toolOutputText("x")).toBe("x");
    expect(toolOutputText(undefined)).toBe("");
    expect(toolOutputText(null)).toBe("null");
    expect(toolOutputText({ n: 1n })).toBe('{"n":"1"}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(toolOutputText(cyclic)).toBe("[object Object]");
  });
});
