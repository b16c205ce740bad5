// Frontend tools (issue 24, finding 6): tools the client declares at run time are offered to the model;
// a call to one is left open for the client and ends the run; its result, sent as the next run's input,
// continues the loop. A clash with a server tool, and a result no open call waits for, are typed errors.
import { MemorySaver } from "@trellis/core";
import { type Message, messageText, ScriptedChatModel, tool, toolMessage, userMessage } from "@trellis/models";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  checkToolResults,
  createReactAgent,
  FrontendToolError,
  frontendToolDefinitions,
  openToolCalls,
  withFrontendTools,
} from "../index.js";

const weather = tool({
  name: "get_weather",
  description: "Current weather in a city",
  schema: z.object({ city: z.string() }),
  fn: ({ city }) => `18°C in ${city}`,
});

const showMap = { name: "show_map", description: "Show a place on the inspector's map" };

/** Calls show_map (and, when asked, get_weather) while the user's message is last; then reads the results. */
function mapModel(): ScriptedChatModel {
  const reply = (messages: Message[]) => {
    const last = messages.at(-1);
    if (last?.role === "user") {
      const calls = [{ id: "call_map", name: "show_map", args: { place: "Dorpsplein 14" } }];
      if (messageText(last).includes("weather"))
        calls.unshift({ id: "call_weather", name: "get_weather", args: { place: "" } });
      return { toolCalls: calls.map((c) => (c.name === "get_weather" ? { ...c, args: { city: "Utrecht" } } : c)) };
    }
    const results = messages.filter((m) => m.role === "tool").map((m) => m.content);
    return `Done: ${results.join("; ")}`;
  };
  return new ScriptedChatModel([reply, reply, reply, reply]);
}

describe("frontend tools in createReactAgent", () => {
  it("offers the run's frontend tools, leaves the call open, and continues with the client's result", async () => {
    const model = mapModel();
    const agent = createReactAgent({ model, tools: [weather], checkpointer: new MemorySaver() });
    const config = withFrontendTools({ threadId: "map-1" }, [showMap]);
    const first = await agent.invoke({ messages: [userMessage("Show Dorpsplein 14")] }, config);
    expect(model.calls[0]?.tools?.map((t) => t.name)).toEqual(["get_weather", "show_map"]);
    // the run ended with the call open: nothing ran it on the server
    expect(first.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(openToolCalls(first.messages).map((c) => c.name)).toEqual(["show_map"]);

    // the client ran it and sends the result as the next run's input: no user message needed
    const result = toolMessage("shown", { toolCallId: "call_map" });
    checkToolResults(first.messages, [result]);
    const second = await agent.invoke({ messages: [result] }, config);
    expect(second.messages.at(-1)?.content).toBe("Done: shown");
    expect(model.calls[1]?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "call_map", content: "shown" });
    expect(openToolCalls(second.messages)).toEqual([]);
  });

  it("runs the server's calls of the same turn and leaves only the frontend call open", async () => {
    const agent = createReactAgent({ model: mapModel(), tools: [weather], checkpointer: new MemorySaver() });
    const config = withFrontendTools({ threadId: "map-2" }, [showMap]);
    const out = await agent.invoke({ messages: [userMessage("weather, and show it")] }, config);
    expect(out.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(out.messages.at(-1)).toMatchObject({ toolCallId: "call_weather", content: "18°C in Utrecht" });
    expect(openToolCalls(out.messages).map((c) => c.id)).toEqual(["call_map"]);
  });

  it("offers nothing extra and behaves as before without frontend tools", async () => {
    const model = new ScriptedChatModel(["Hello."]);
    const agent = createReactAgent({ model, tools: [weather] });
    const out = await agent.invoke({ messages: [userMessage("hi")] });
    expect(model.calls[0]?.tools?.map((t) => t.name)).toEqual(["get_weather"]);
    expect(out.messages.at(-1)?.content).toBe("Hello.");
  });

  it("refuses a frontend tool named like one of the agent's own tools, naming it", async () => {
    const agent = createReactAgent({ model: new ScriptedChatModel(["never"]), tools: [weather] });
    const config = withFrontendTools({}, [{ name: "get_weather", description: "the client's" }]);
    const failure = agent.invoke({ messages: [userMessage("hi")] }, config);
    await expect(failure).rejects.toBeInstanceOf(FrontendToolError);
    await expect(failure).rejects.toThrow(/Frontend tool "get_weather" has the name of one of the agent's own tools/);
  });
});

describe("frontend tool declarations and results", () => {
  it("checks declarations: name, description, duplicates; parameters default to an empty object", () => {
    expect(frontendToolDefinitions([showMap])).toEqual([
      { ...showMap, parameters: { type: "object", properties: {} } },
    ]);
    expect(() => frontendToolDefinitions([{ name: "a b", description: "x" }])).toThrow(/needs a name/);
    expect(() => frontendToolDefinitions([{ name: "x" }])).toThrow(/"x" needs a description/);
    expect(() => frontendToolDefinitions([showMap, showMap])).toThrow(/"show_map" is declared twice/);
    expect(() => frontendToolDefinitions("show_map")).toThrow(FrontendToolError);
  });

  it("refuses a tool result for an unknown or already answered tool call, naming it", () => {
    const thread: Message[] = [
      userMessage("x"),
      { id: "a1", role: "assistant", content: "", toolCalls: [{ id: "c1", name: "show_map", args: {} }] },
    ];
    expect(() => checkToolResults(thread, [toolMessage("r", { id: "t9", toolCallId: "bogus" })])).toThrow(
      /Tool result "t9" answers tool call "bogus", which is unknown: the open tool calls are "c1"/,
    );
    const answered = [...thread, toolMessage("r", { toolCallId: "c1" })];
    let error: unknown;
    try {
      checkToolResults(answered, [toolMessage("again", { toolCallId: "c1" })]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FrontendToolError);
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", toolCallId: "c1" });
    expect(String((error as Error).message)).toMatch(/has its result already: no tool call waits for a result/);
  });
});
