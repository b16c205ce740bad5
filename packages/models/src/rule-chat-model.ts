import { TrellisError } from "@trellis/common";
import { BaseChatModel, type ChatRequest, type ToolDefinition } from "./chat-model.js";
import { messageText } from "./content-parts.js";
import type { AssistantMessage, Message, ToolMessage, UserMessage } from "./messages.js";
import { type OfflineReply, offlineMessage, type RecordedCall, recordCall } from "./offline-reply.js";

/**
 * What a rule sees: the conversation and, for a regex rule, the text it matched and the match.
 *
 * @example
 * const rule: Rule = { when: /weather in (\w+)/i, reply: (ctx: RuleContext) => `Sunny in ${ctx.match?.[1]}` };
 */
export interface RuleContext {
  messages: readonly Message[];
  /** The last message, whatever its role. */
  last: Message | undefined;
  /** The last user message. */
  lastUser: UserMessage | undefined;
  /** The tool results since the last assistant message (empty unless the last message is a tool result). */
  toolResults: readonly ToolMessage[];
  /** The text the rule's pattern was tested against ("" for predicates over the whole conversation). */
  text: string;
  /** The regex match, for regex rules. */
  match: RegExpMatchArray | undefined;
  /** The tools offered in this call. */
  tools: readonly ToolDefinition[];
}

/**
 * A rule's answer: text, or text and tool calls.
 *
 * @example
 * const answer: RuleReply = { content: "Looking it up.", toolCalls: [{ name: "search", args: { q: "x" } }] };
 */
export type RuleReply = string | OfflineReply;

/**
 * One rule of a {@link RuleChatModel}. `when` is tested against the last message if its role is `on`
 * (default `"user"`): a RegExp must match its content, a string must occur in it (case-insensitive).
 * A function `when` decides from the whole {@link RuleContext}, whatever the last role.
 *
 * @example
 * const rules: Rule[] = [
 *   { name: "weather", when: /weather in (\w+)/i, reply: (ctx) => ({ toolCalls: [{ name: "get_weather", args: { city: ctx.match?.[1] } }] }) },
 *   { name: "summarise", when: /./, on: "tool", reply: (ctx) => `The forecast: ${ctx.text}` },
 *   { when: "hello", reply: "Hi! Ask me about the weather." },
 * ];
 */
export interface Rule {
  /** Shown in `calls` records, to see which rule answered. */
  name?: string;
  when: RegExp | string | ((ctx: RuleContext) => boolean);
  /** Which last message a RegExp or string `when` looks at: `"user"` (default), `"tool"` or `"any"`. */
  on?: "user" | "tool" | "any";
  reply: RuleReply | ((ctx: RuleContext) => RuleReply);
}

/**
 * Options of {@link RuleChatModel}.
 *
 * @example
 * new RuleChatModel({ rules, fallback: "Sorry, I only know about the weather.", model: "weather-bot" });
 */
export interface RuleChatModelOptions {
  rules: readonly Rule[];
  /** The reply when no rule matches. Default: a sentence saying no rule matched, quoting the last message. */
  fallback?: RuleReply | ((ctx: RuleContext) => RuleReply);
  /** Model id it reports, and salt of its derived ids. Default `"rules"`. */
  model?: string;
  /** How many of the latest calls `calls` keeps, so a long-running server does not grow it forever. Default 100. */
  maxRecordedCalls?: number;
}

/**
 * A deterministic offline model: the first rule whose pattern matches answers. It is what the
 * reference apps run on without a key. A rule that would call a tool not offered in this call is
 * skipped, so one rule set can serve several agents with different tools. Replies stream as word
 * chunks; ids derive from the conversation, so the same conversation always gets the same message.
 *
 * @example
 * const model = new RuleChatModel({
 *   rules: [
 *     { when: /weather in (\w+)/i, reply: (ctx) => ({ toolCalls: [{ name: "get_weather", args: { city: ctx.match?.[1] } }] }) },
 *     { when: /./, on: "tool", reply: (ctx) => `Here is the forecast: ${ctx.text}` },
 *   ],
 *   fallback: "Ask me about the weather in a city.",
 * });
 * const reply = await model.invoke(["What's the weather in Lima?"], { tools: [getWeather] });
 * reply.toolCalls?.[0]?.args; // { city: "Lima" }
 */
export class RuleChatModel extends BaseChatModel {
  readonly provider = "rules";
  readonly model: string;
  /**
   * The latest calls received (up to `maxRecordedCalls`), with the name (or `#index`) of the rule that
   * answered, `"fallback"` otherwise.
   */
  readonly calls: (RecordedCall & { rule: string })[] = [];
  readonly #maxRecorded: number;
  readonly #rules: readonly Rule[];
  readonly #fallback: RuleReply | ((ctx: RuleContext) => RuleReply);

  constructor(options: RuleChatModelOptions) {
    super();
    for (const [i, rule] of options.rules.entries()) {
      if (!(rule.when instanceof RegExp) && typeof rule.when !== "string" && typeof rule.when !== "function") {
        throw new TrellisError(
          "INVALID_ARGUMENT",
          `Rule ${rule.name ?? i} needs \`when\`: a RegExp, a string or a function.`,
        );
      }
    }
    this.#rules = [...options.rules];
    this.#fallback = options.fallback ?? defaultFallback;
    this.model = options.model ?? "rules";
    this.#maxRecorded = options.maxRecordedCalls ?? 100;
  }

  #record(call: RecordedCall & { rule: string }): void {
    this.calls.push(call);
    if (this.calls.length > this.#maxRecorded) this.calls.splice(0, this.calls.length - this.#maxRecorded);
  }

  protected async generate(messages: Message[], request: ChatRequest): Promise<AssistantMessage> {
    const base = baseContext(messages, request.tools ?? []);
    const offered = new Set(base.tools.map((t) => t.name));
    for (const [i, rule] of this.#rules.entries()) {
      const ctx = matchRule(rule, base);
      if (!ctx) continue;
      const reply = toReply(typeof rule.reply === "function" ? rule.reply(ctx) : rule.reply);
      if ((reply.toolCalls ?? []).some((call) => !offered.has(call.name))) continue;
      this.#record({ ...recordCall(messages, request), rule: rule.name ?? `#${i}` });
      return offlineMessage(reply, messages, this.model);
    }
    this.#record({ ...recordCall(messages, request), rule: "fallback" });
    const ctx = { ...base, text: messageText(base.last) };
    const fallback = toReply(typeof this.#fallback === "function" ? this.#fallback(ctx) : this.#fallback);
    return offlineMessage(fallback, messages, this.model);
  }
}

function baseContext(messages: readonly Message[], tools: readonly ToolDefinition[]): RuleContext {
  const last = messages.at(-1);
  let lastUser: UserMessage | undefined;
  for (let i = messages.length - 1; i >= 0 && !lastUser; i--) {
    const m = messages[i];
    if (m?.role === "user") lastUser = m;
  }
  const toolResults: ToolMessage[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "tool") break;
    toolResults.unshift(m);
  }
  return { messages, last, lastUser, toolResults, text: "", match: undefined, tools };
}

function matchRule(rule: Rule, base: RuleContext): RuleContext | undefined {
  if (typeof rule.when === "function") return rule.when(base) ? base : undefined;
  const on = rule.on ?? "user";
  const last = base.last;
  if (!last || (on !== "any" && last.role !== on)) return undefined;
  // the text parts of a message with images or files: an offline model reads no pictures
  const text = on === "tool" ? base.toolResults.map((m) => m.content).join("\n") : messageText(last);
  if (typeof rule.when === "string") {
    return text.toLowerCase().includes(rule.when.toLowerCase()) ? { ...base, text } : undefined;
  }
  rule.when.lastIndex = 0; // a global or sticky RegExp keeps state between calls; rules must not
  const match = text.match(rule.when);
  return match ? { ...base, text, match } : undefined;
}

function toReply(reply: RuleReply): OfflineReply {
  return typeof reply === "string" ? { content: reply } : reply;
}

function defaultFallback(ctx: RuleContext): string {
  const quoted = ctx.text.length > 80 ? `${ctx.text.slice(0, 80)}…` : ctx.text;
  return `I am an offline model and no rule matched "${quoted}". Set TRELLIS_MODEL_PROVIDER to use a real model.`;
}
