/**
 * A chat page built the way LangGraph's own UIs are: React and the SDK's `useStream`, rendering
 * messages by LangChain `type`, tool calls from `tool_calls`, and approve / reject buttons for an
 * interrupt in LangChain's human-in-the-loop shape. The test bundles it with esbuild and opens it in
 * headless Chromium against a Trellis server on another origin.
 */
import { useStream } from "@langchain/langgraph-sdk/react";
import { createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";

type WireMessage = {
  id?: string;
  type?: string;
  content: unknown;
  tool_calls?: Array<{ name: string; args: unknown }>;
};
type Review = { action_requests?: Array<{ name: string; args: unknown }> };

const params = new URLSearchParams(location.search);
const apiUrl = params.get("api") ?? "http://127.0.0.1:8123";

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (p as { text?: string }).text ?? "").join("");
  return "";
}

function Chat() {
  const [draft, setDraft] = useState("");
  const stream = useStream<{ messages: WireMessage[] }>({
    apiUrl,
    assistantId: "email-agent",
    messagesKey: "messages",
  });
  const review = (stream.interrupt?.value as Review | undefined)?.action_requests;
  const decide = (type: "approve" | "reject") =>
    stream.submit(
      {},
      { command: { resume: { decisions: [{ type, ...(type === "reject" ? { message: "Not now." } : {}) }] } } },
    );
  return h(
    "main",
    null,
    ...stream.messages.map((m, i) =>
      h(
        "div",
        { key: m.id ?? i, className: "msg", "data-type": m.type },
        text(m.content),
        ...((m as WireMessage).tool_calls ?? []).map((c, j) =>
          h("div", { key: j, className: "tool-call" }, `${c.name}(${JSON.stringify(c.args)})`),
        ),
      ),
    ),
    review
      ? h(
          "section",
          { className: "review" },
          ...review.map((a, j) => h("div", { key: j, className: "action" }, `${a.name} → ${JSON.stringify(a.args)}`)),
          h("button", { type: "button", id: "approve", onClick: () => decide("approve") }, "Approve"),
          h("button", { type: "button", id: "reject", onClick: () => decide("reject") }, "Reject"),
        )
      : null,
    h("input", { id: "draft", value: draft, onChange: (e: { target: { value: string } }) => setDraft(e.target.value) }),
    h(
      "button",
      {
        type: "button",
        id: "send",
        onClick: () => {
          // content blocks, as agent-chat-ui sends them
          stream.submit({ messages: [{ type: "human", content: [{ type: "text", text: draft }] }] });
          setDraft("");
        },
      },
      "Send",
    ),
    h("p", { id: "status" }, stream.isLoading ? "working" : "idle"),
  );
}

const root = document.getElementById("root");
if (root) createRoot(root).render(h(Chat));
