// @vitest-environment jsdom
/**
 * LangGraph's React hook `useStream` (`@langchain/langgraph-sdk/react`, SDK 2.x) against the server,
 * rendered in jsdom: a component that reads no values before its first submit reaches the interrupt,
 * answers it with `submit({}, { command })` as agent-chat-ui does, and sees the run to its end.
 */
import { useStream } from "@langchain/langgraph-sdk/react";
import { act, createElement } from "react";
import { createRoot } from "react-dom/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, startTestServer, type TestServer } from "./harness.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

type Ask = { log: string[]; answer?: string };
type Hook = ReturnType<typeof useStream<Ask, { InterruptType: { question: string } }>>;

/** What the rendered component saw: the hook, and the thread it made. */
const seen: { hook?: Hook; threadId?: string } = {};

/** A chat component that reads no values: the hook asks for no stream mode until it is read. */
function Chat({ url }: { url: string }) {
  seen.hook = useStream<Ask, { InterruptType: { question: string } }>({
    apiUrl: url,
    assistantId: "ask",
    onThreadId: (id) => {
      seen.threadId = id;
    },
  });
  return null;
}

it("reaches the interrupt, resumes it with submit({}, { command }) and ends with the answer", async () => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  // jsdom's document (this package's types have no DOM library)
  const dom = (globalThis as unknown as { document: { createElement(tag: string): Parameters<typeof createRoot>[0] } })
    .document;
  const root = createRoot(dom.createElement("div"));
  await act(async () => root.render(createElement(Chat, { url: t.url })));
  await act(async () => {
    await seen.hook?.submit({ log: [] });
  });
  const interrupt = await eventually(async () => seen.hook?.interrupt);
  expect(interrupt.value).toEqual({ question: "What is your name?" });
  await act(async () => {
    await seen.hook?.submit({}, { command: { resume: "Ana" } });
  });
  await eventually(async () => seen.hook?.isLoading === false && seen.hook?.values?.answer === "Ana");
  expect(seen.hook?.interrupt).toBeUndefined();
  const state = (await (await fetch(`${t.url}/threads/${seen.threadId}/state`)).json()) as { values: Ask };
  expect(state.values.answer).toBe("Ana");
  await act(async () => root.unmount());
});
