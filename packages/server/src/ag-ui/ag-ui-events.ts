/**
 * One AG-UI event, as sent on the wire (`type` plus the event's fields).
 *
 * @example
 * const events: AgUiEvent[] = [
 *   { type: "RUN_STARTED", threadId, runId },
 *   { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hello" },
 *   { type: "RUN_FINISHED", threadId, runId },
 * ];
 */
export interface AgUiEvent {
  type: string;
  [key: string]: unknown;
}

/**
 * One JSON Patch (RFC 6902) operation.
 *
 * @example
 * const delta: JsonPatchOp[] = jsonPatch({ step: 1 }, { step: 2, done: true });
 * // [{ op: "replace", path: "/step", value: 2 }, { op: "add", path: "/done", value: true }]
 */
export type JsonPatchOp =
  | { op: "add"; path: string; value: unknown }
  | { op: "replace"; path: string; value: unknown }
  | { op: "remove"; path: string };

const escapeKey = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * The JSON Patch that turns `before` into `after`: objects are compared key by key, arrays that only
 * grew get `add` operations at `/-`, anything else that changed is replaced.
 *
 * @example
 * jsonPatch({ n: 1, log: ["a"] }, { n: 2, log: ["a", "b"] });
 * // [{ op: "replace", path: "/n", value: 2 }, { op: "add", path: "/log/-", value: "b" }]
 */
export function jsonPatch(before: unknown, after: unknown, path = ""): JsonPatchOp[] {
  if (same(before, after)) return [];
  if (isObject(before) && isObject(after)) {
    const ops: JsonPatchOp[] = [];
    // a key whose value is undefined is not on the wire (JSON drops it): the client never had it
    const has = (o: Record<string, unknown>, key: string) => key in o && o[key] !== undefined;
    for (const key of Object.keys(before)) {
      if (has(before, key) && !has(after, key)) ops.push({ op: "remove", path: `${path}/${escapeKey(key)}` });
    }
    for (const [key, value] of Object.entries(after)) {
      if (value === undefined) continue;
      const p = `${path}/${escapeKey(key)}`;
      if (!has(before, key)) ops.push({ op: "add", path: p, value });
      else ops.push(...jsonPatch(before[key], value, p));
    }
    return ops;
  }
  if (Array.isArray(before) && Array.isArray(after) && after.length >= before.length) {
    if (before.every((v, i) => same(v, after[i]))) {
      return after.slice(before.length).map((value) => ({ op: "add", path: `${path}/-`, value }));
    }
  }
  return [{ op: "replace", path: path === "" ? "" : path, value: after }];
}

/** A message in the stored events' values: LangChain's shape, as the Agent Server API sends it. */
interface StateMessage {
  id?: string;
  type?: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; name: string; args?: unknown }>;
  tool_call_id?: string;
}

const text = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof p === "string" ? p : ((p as { text?: string })?.text ?? ""))).join("")
      : JSON.stringify(content ?? "");

/**
 * Turns a run's stored stream events (Agent Server shapes) into AG-UI events: streamed message chunks
 * into TEXT_MESSAGE_* and TOOL_CALL_*, state values into STATE_SNAPSHOT then STATE_DELTA (JSON Patch),
 * new tool messages into TOOL_CALL_RESULT, and assistant messages that arrived whole (no streaming)
 * into the same message and tool-call events.
 *
 * @example
 * const t = new AgUiTranslator(currentMessages);
 * for (const e of t.translate("values", { messages })) send(e);
 */
export class AgUiTranslator {
  #state: Record<string, unknown> | undefined;
  readonly #seen = new Set<string>();
  readonly #openText = new Set<string>();
  readonly #openTools = new Map<string, string>();

  /** `known`: messages the client already has (their ids are not announced again). */
  constructor(known: ReadonlyArray<{ id?: string }> = []) {
    for (const m of known) if (m.id) this.#seen.add(m.id);
  }

  /** The state last snapshotted or patched. */
  get state(): Record<string, unknown> | undefined {
    return this.#state;
  }

  translate(event: string, data: unknown): AgUiEvent[] {
    if (event === "values") return this.#values(data as Record<string, unknown>);
    if (event === "messages") return this.#chunk((data as [unknown, unknown])[0]);
    if (event === "custom") return [{ type: "CUSTOM", name: "custom", value: data }];
    return [];
  }

  #values(values: Record<string, unknown>): AgUiEvent[] {
    const { __interrupt__: _i, ...next } = values;
    const out: AgUiEvent[] = [];
    if (this.#state === undefined) out.push({ type: "STATE_SNAPSHOT", snapshot: next });
    else {
      const delta = jsonPatch(this.#state, next);
      if (delta.length) out.push({ type: "STATE_DELTA", delta });
    }
    this.#state = next;
    const messages = Array.isArray(next.messages) ? (next.messages as StateMessage[]) : [];
    for (const m of messages) out.push(...this.#wholeMessage(m));
    return out;
  }

  #wholeMessage(m: StateMessage): AgUiEvent[] {
    if (!m.id || this.#seen.has(m.id)) return [];
    this.#seen.add(m.id);
    if (m.type === "tool") {
      return [
        {
          type: "TOOL_CALL_RESULT",
          messageId: m.id,
          toolCallId: m.tool_call_id ?? "",
          content: text(m.content),
          role: "tool",
        },
      ];
    }
    if (m.type !== "ai") return [];
    const out: AgUiEvent[] = [];
    const body = text(m.content);
    if (body) {
      out.push({ type: "TEXT_MESSAGE_START", messageId: m.id, role: "assistant" });
      out.push({ type: "TEXT_MESSAGE_CONTENT", messageId: m.id, delta: body });
      out.push({ type: "TEXT_MESSAGE_END", messageId: m.id });
    }
    for (const call of m.tool_calls ?? []) {
      const args = call.args ?? {};
      out.push({ type: "TOOL_CALL_START", toolCallId: call.id, toolCallName: call.name, parentMessageId: m.id });
      out.push({
        type: "TOOL_CALL_ARGS",
        toolCallId: call.id,
        delta: typeof args === "string" ? args : JSON.stringify(args),
      });
      out.push({ type: "TOOL_CALL_END", toolCallId: call.id });
    }
    return out;
  }

  #chunk(chunk: unknown): AgUiEvent[] {
    const c = chunk as {
      type?: string;
      id?: string;
      content?: unknown;
      tool_call_chunks?: Array<{ id: string; name: string; args: string }>;
    };
    const out: AgUiEvent[] = [];
    if (!c?.id) return out;
    if (c.type === "AIMessageChunk") {
      const delta = text(c.content);
      if (delta) {
        if (!this.#openText.has(c.id)) {
          this.#openText.add(c.id);
          out.push({ type: "TEXT_MESSAGE_START", messageId: c.id, role: "assistant" });
        }
        out.push({ type: "TEXT_MESSAGE_CONTENT", messageId: c.id, delta });
      }
      for (const t of c.tool_call_chunks ?? []) {
        if (!this.#openTools.has(t.id)) {
          this.#closeText(c.id, out);
          this.#openTools.set(t.id, c.id);
          out.push({ type: "TOOL_CALL_START", toolCallId: t.id, toolCallName: t.name, parentMessageId: c.id });
        }
        if (t.args) out.push({ type: "TOOL_CALL_ARGS", toolCallId: t.id, delta: t.args });
      }
      return out;
    }
    if (c.type === "ai") {
      // the whole message: close what its chunks opened; a message never chunked is announced from state
      const streamed = this.#openText.has(c.id) || [...this.#openTools.values()].includes(c.id);
      this.#closeText(c.id, out);
      for (const [toolCallId, messageId] of this.#openTools) {
        if (messageId !== c.id) continue;
        out.push({ type: "TOOL_CALL_END", toolCallId });
        this.#openTools.delete(toolCallId);
      }
      if (streamed) this.#seen.add(c.id);
    }
    return out;
  }

  #closeText(messageId: string, out: AgUiEvent[]): void {
    if (!this.#openText.delete(messageId)) return;
    out.push({ type: "TEXT_MESSAGE_END", messageId });
  }

  /** Ends whatever chunks left open (a run that stopped mid-message). */
  flush(): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    for (const id of [...this.#openText]) this.#closeText(id, out);
    for (const toolCallId of this.#openTools.keys()) out.push({ type: "TOOL_CALL_END", toolCallId });
    this.#openTools.clear();
    return out;
  }
}
