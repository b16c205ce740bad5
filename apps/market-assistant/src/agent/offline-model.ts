import { type Message, RuleChatModel, type RuleContext } from "@trellis/models";
import type { CompanyDirectory } from "../companies/company-graph.js";
import { type EntityMention, findEntities } from "../companies/entity-matcher.js";
import { parseTranscript, type TranscriptTurn } from "../transcript/transcript-format.js";
import { transcriptFromPrompt } from "./agent-state.js";
import { QUERY_TOOL_NAME } from "./query-tool.js";

/** What the offline model decided to do about the latest question. */
export interface OfflinePlan {
  /** The latest question, as the user wrote it. */
  question: string;
  /** Database queries to make, one tool call each, in order. */
  queries: string[];
  /** What each query is about (headings of a comparison). */
  labels: string[];
  /** Names a pronoun ("they", "it") was resolved to from earlier turns. */
  resolved: string[];
  /** A reply that needs no database (greetings, an empty question). */
  direct?: string;
}

const PRONOUN =
  /\b(these companies|those companies|this company|that company|the company|they|them|their|theirs|those|these|it|its)\b/i;
/** Pronouns that point at the previous answer's list ("which of those", "among them"). */
const SET_PRONOUN = /\b(those|these|them|the above|that list)\b/i;
/** A question about a set as a whole: one query over all its companies, not one per company. */
const SET_QUESTION =
  /\b(combined|total|sum|together|altogether|average|mean|how many|which of|which one|biggest|largest|smallest|highest|lowest|most|least|rank|ranked|top|below|above|under|over|more than|less than|at least|at most)\b/i;
const COMPARE = /\b(compare|comparison|comparing|versus|vs\.?|against|difference between|differ)\b/i;
const SMALL_TALK = /^\s*(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening))\b[\s!.,]*$/i;
const HOLDINGS_WORDS = /\bown(s|ed)?\b|\bsubsidiar|\bholdings?\b|\bstakes?\b/i;

const CAPABILITIES =
  "I can answer questions about listed companies: the largest companies by market capitalisation, a company's " +
  "profile, what a company owns (subsidiaries and ownership percentages), who owns a company, and the financial " +
  "metrics of companies and sectors.";

/**
 * The app's offline model: a deterministic {@link RuleChatModel} that reads the conversation from the
 * system prompt's transcript, as an LLM would, and drives `query_graph_database`:
 *
 * - a question → one tool call with the question;
 * - a follow-up with a pronoun ("What companies do they own?") → the pronoun is resolved to the
 *   companies (or sectors) named in the latest earlier human turn that named any, else in the latest
 *   agent turn, and the tool is called with the names in place of the pronoun;
 * - a comparison of several companies or sectors → one tool call per entity, one per turn;
 * - tool results → the answer, quoting them (side by side for a comparison).
 *
 * @example
 * const model = createOfflineMarketModel(await companies.directory());
 * const graph = buildConversationGraph({ model, tools: [queryTool] });
 */
export function createOfflineMarketModel(directory: CompanyDirectory, options: { model?: string } = {}): RuleChatModel {
  const planOf = (ctx: RuleContext) => planFromMessages(ctx.messages, directory);
  return new RuleChatModel({
    model: options.model ?? "market-assistant-offline",
    rules: [
      {
        name: "direct",
        when: (ctx) => currentToolResults(ctx.messages).length === 0 && planOf(ctx).direct !== undefined,
        reply: (ctx) => planOf(ctx).direct ?? "",
      },
      {
        name: "query-database",
        when: (ctx) => callsMade(ctx.messages) < planOf(ctx).queries.length,
        reply: (ctx) => ({
          content: "",
          toolCalls: [{ name: QUERY_TOOL_NAME, args: { query: planOf(ctx).queries[callsMade(ctx.messages)] } }],
        }),
      },
      {
        name: "answer",
        when: (ctx) => currentToolResults(ctx.messages).length > 0,
        reply: (ctx) => composeAnswer(planOf(ctx), currentToolResults(ctx.messages)),
      },
    ],
    fallback: `I could not look that up. ${CAPABILITIES}`,
  });
}

/**
 * What the offline model plans for the conversation in `messages` (system prompt with the transcript,
 * then the current execution).
 *
 * @example
 * planFromMessages([systemMessage(systemPrompt("Human: Top 5 companies by market cap?"))], directory).queries;
 * // ["Top 5 companies by market cap?"]
 */
export function planFromMessages(messages: readonly Message[], directory: CompanyDirectory): OfflinePlan {
  const system = messages.find((m) => m.role === "system");
  const transcript = system ? transcriptFromPrompt(system.content) : undefined;
  const turns = parseTranscript(transcript ?? "");
  return planFromTurns(turns, directory);
}

/**
 * The plan for the last human turn of a transcript, resolving pronouns from the earlier turns.
 *
 * @example
 * planFromTurns([{ speaker: "Human", text: "Tell me about John Keells" }, { speaker: "Agent", text: "…" },
 *   { speaker: "Human", text: "What companies do they own?" }], directory).queries;
 * // ["What companies do John Keells Holdings PLC own?"]
 */
export function planFromTurns(turns: readonly TranscriptTurn[], directory: CompanyDirectory): OfflinePlan {
  let lastHuman = -1;
  for (let i = turns.length - 1; i >= 0 && lastHuman < 0; i--) if (turns[i]?.speaker === "Human") lastHuman = i;
  const question = (turns[lastHuman]?.text ?? "").trim();
  const plan: OfflinePlan = { question, queries: [], labels: [], resolved: [] };
  if (question === "") return { ...plan, direct: `I did not receive a question. ${CAPABILITIES}` };
  const found = findEntities(question, directory);
  const entities = [...found.companies, ...found.sectors].sort((a, b) => a.index - b.index);
  if (entities.length === 0 && SMALL_TALK.test(question)) return { ...plan, direct: `Hello! ${CAPABILITIES}` };

  let subject = entities;
  let resolvedQuestion = question;
  const pronoun = PRONOUN.exec(question);
  if (entities.length === 0 && pronoun) {
    subject = referents(turns.slice(0, lastHuman), directory, SET_PRONOUN.test(question));
    if (subject.length > 0) {
      plan.resolved = subject.map((e) => e.name);
      if (subject.length > 1 && !COMPARE.test(question) && !SET_QUESTION.test(question)) {
        return {
          ...plan,
          queries: subject.map((e) => replacePronoun(question, pronoun[0], e.name)),
          labels: subject.map((e) => e.name),
        };
      }
      resolvedQuestion = replacePronoun(question, pronoun[0], joinNames(subject.map((e) => e.name)));
    }
  }
  if (COMPARE.test(question) && subject.length >= 2) {
    const topic = HOLDINGS_WORDS.test(question) ? "holdings" : "metrics";
    return {
      ...plan,
      queries: subject.map((e) => comparisonQuery(e, topic)),
      labels: subject.map((e) => e.name),
    };
  }
  return { ...plan, queries: [resolvedQuestion], labels: subject.map((e) => e.name) };
}

/**
 * What a pronoun points at. The companies the previous answer listed (less those its question named:
 * "JKH's holdings" lists JKH's companies, not JKH) when the pronoun points at a list ("which of those",
 * "them") or when the previous question named no company ("top 3 banks" → "their combined profit" is
 * about the three banks listed, not every bank); else the entities the latest earlier human turn named;
 * else the first company the latest answer named.
 */
function referents(
  earlier: readonly TranscriptTurn[],
  directory: CompanyDirectory,
  setPronoun: boolean,
): EntityMention[] {
  const named = (text: string) => {
    const found = findEntities(text, directory);
    return found.companies.length > 0 ? found.companies : found.sectors;
  };
  let agentAt = -1;
  for (let i = earlier.length - 1; i >= 0 && agentAt < 0; i--) if (earlier[i]?.speaker === "Agent") agentAt = i;
  let askedAt = -1;
  for (let i = agentAt - 1; i >= 0 && askedAt < 0; i--) if (earlier[i]?.speaker === "Human") askedAt = i;
  const asked = askedAt >= 0 ? findEntities((earlier[askedAt] as TranscriptTurn).text, directory).companies : [];
  const listed =
    agentAt >= 0
      ? findEntities(answerBody((earlier[agentAt] as TranscriptTurn).text), directory).companies.filter(
          (c) => !asked.some((a) => a.id === c.id),
        )
      : [];
  if (listed.length > 0 && (setPronoun || (asked.length === 0 && listed.length > 1))) return listed;
  for (let i = earlier.length - 1; i >= 0; i--) {
    const turn = earlier[i] as TranscriptTurn;
    if (turn.speaker !== "Human") continue;
    const mentions = named(turn.text);
    if (mentions.length > 0) return mentions;
  }
  for (let i = earlier.length - 1; i >= 0; i--) {
    const turn = earlier[i] as TranscriptTurn;
    if (turn.speaker !== "Agent") continue;
    const first = named(turn.text)[0];
    if (first) return [first];
  }
  return [];
}

/** An answer without the lines that are not its content: the resolved-question note and the notice. */
function answerBody(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^\(From our conversation|^\(.*sample data/i.test(line.trim()))
    .join("\n");
}

function joinNames(names: readonly string[]): string {
  if (names.length <= 2) return names.join(" and ");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

function replacePronoun(question: string, pronoun: string, names: string): string {
  const possessive = /^(their|theirs|its)$/i.test(pronoun);
  return question.replace(pronoun, possessive ? `${names}'s` : names);
}

function comparisonQuery(entity: EntityMention, topic: "holdings" | "metrics"): string {
  if (topic === "holdings") return `What companies does ${entity.name} own?`;
  return entity.kind === "sector"
    ? `Financial metrics of the ${entity.name} sector`
    : `Financial metrics of ${entity.name}`;
}

/** Messages after the last user message: this execution's tool calls and results. */
function sinceLastUser(messages: readonly Message[]): readonly Message[] {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === "user") return messages.slice(i + 1);
  return messages;
}

function callsMade(messages: readonly Message[]): number {
  return sinceLastUser(messages).reduce((n, m) => n + (m.role === "assistant" ? (m.toolCalls?.length ?? 0) : 0), 0);
}

function currentToolResults(messages: readonly Message[]): string[] {
  return sinceLastUser(messages)
    .filter((m) => m.role === "tool")
    .map((m) => m.content);
}

/** The answer from the tool results: one result as it is, several side by side under headings. */
function composeAnswer(plan: OfflinePlan, results: readonly string[]): string {
  const { bodies, notice } = splitNotice(results);
  const resolved =
    plan.resolved.length > 0
      ? `(From our conversation, I took your question to be about ${joinNames(plan.resolved)}.)\n\n`
      : "";
  const footer = notice ? `\n\n${notice}` : "";
  if (bodies.length === 1) return `${resolved}Here is what the company database says:\n\n${bodies[0]}${footer}`;
  const sections = bodies.map((body, i) => `### ${plan.labels[i] ?? `Query ${i + 1}`}\n${body}`);
  const subject = plan.labels.length > 0 ? plan.labels.join(" vs ") : plan.question;
  return `${resolved}Comparison of ${subject}, from ${bodies.length} queries to the company database:\n\n${sections.join("\n\n")}${footer}`;
}

/** Takes the dataset notice (a last paragraph in parentheses, the same in every result) out of the bodies. */
function splitNotice(results: readonly string[]): { bodies: string[]; notice: string } {
  const last = (text: string) => {
    const at = text.lastIndexOf("\n\n");
    const tail = at < 0 ? "" : text.slice(at + 2);
    return /^\(.*\)$/s.test(tail) ? tail : "";
  };
  const notice = results.length > 0 ? last(results[0] as string) : "";
  if (!notice || results.some((r) => last(r) !== notice)) return { bodies: [...results], notice: "" };
  return { bodies: results.map((r) => r.slice(0, r.length - notice.length - 2)), notice };
}
