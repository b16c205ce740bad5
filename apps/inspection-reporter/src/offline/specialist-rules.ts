import { messageText, type Rule, type RuleContext } from "@trellis/models";
import { incomingRequest, lastToolResult, toolJson } from "./conversation-reading.js";
import { HISTORY_INTENT, REGULATION_INTENT, REPORT_INTENT } from "./general-rules.js";

const KVK = /\b(\d{8})\b/;
const BACK_TO_GENERAL = "Daar kan ik u niet mee helpen; ik geef u terug aan de algemene assistent.";

interface PastInspection {
  date: string;
  type: string;
  inspector: string;
  result: string;
  findings: string[];
}

function historyText(ctx: RuleContext): string {
  const data = toolJson(lastToolResult(ctx)) as
    | {
        found: boolean;
        kvk_number: string;
        name?: string;
        address?: string;
        inspections?: PastInspection[];
        note?: string;
      }
    | undefined;
  if (!data) return `Het opzoeken van de historie lukte niet: ${ctx.last?.content ?? ""}`;
  if (!data.found) return `Ik heb geen bedrijf gevonden met KVK-nummer ${data.kvk_number}.`;
  const inspections = data.inspections ?? [];
  const lines = [`Inspectiehistorie van ${data.name} (KVK ${data.kvk_number}, ${data.address}):`];
  if (inspections.length === 0) lines.push("- Nog geen inspecties geregistreerd.");
  for (const i of inspections) {
    lines.push(`- ${i.date} — ${i.type}, ${i.result} (${i.inspector}): ${i.findings.join("; ")}`);
  }
  lines.push("", `_${data.note ?? "Voorbeeldgegevens."}_`);
  return lines.join("\n");
}

/** A company name in a question such as "Wat is de historie van Snackbar 't Hoekje?". */
function companyName(text: string): string | undefined {
  const match = /(?:van|voor|over|bij)\s+(?:het bedrijf\s+|de zaak\s+)?(.+?)\s*(?:[?.!]|$)/i.exec(text);
  const name = match?.[1]?.trim();
  return name && name.length >= 3 ? name : undefined;
}

/**
 * The offline rules of `history-agent`: look up by KVK number, or find the company by name first;
 * summarise the history; hand questions about something else back to the general agent.
 *
 * @example
 * const history = new RuleChatModel({ rules: historyRules(), fallback: "…" });
 */
export function historyRules(): Rule[] {
  return [
    {
      name: "history-summary",
      when: (ctx) => lastToolResult(ctx, "get_inspection_history") !== undefined,
      reply: historyText,
    },
    {
      name: "history-after-search",
      when: (ctx) => lastToolResult(ctx, "search_companies") !== undefined,
      reply: (ctx) => {
        const data = toolJson(lastToolResult(ctx)) as
          | { query: string; matches: { kvk_number: string; name: string; address: string }[] }
          | undefined;
        const matches = data?.matches ?? [];
        if (matches.length === 1) {
          const only = matches[0] as { kvk_number: string };
          return { toolCalls: [{ name: "get_inspection_history", args: { kvk_number: only.kvk_number } }] };
        }
        if (matches.length === 0) {
          return `Ik heb geen bedrijf gevonden dat lijkt op “${data?.query ?? ""}”. Wat is het KVK-nummer?`;
        }
        const list = matches.map((m) => `- ${m.name} (KVK ${m.kvk_number}), ${m.address}`).join("\n");
        return `Ik vond meerdere bedrijven:\n${list}\nVan welk KVK-nummer wilt u de historie zien?`;
      },
    },
    {
      name: "history-handback",
      when: (ctx) => {
        const text = incomingRequest(ctx);
        return (
          text !== undefined &&
          ctx.last?.role === "user" &&
          !HISTORY_INTENT.test(text) &&
          (REPORT_INTENT.test(text) || REGULATION_INTENT.test(text))
        );
      },
      reply: { content: BACK_TO_GENERAL, toolCalls: [{ name: "transfer_to_general", args: {} }] },
    },
    {
      name: "history-by-kvk",
      when: (ctx) => KVK.test(incomingRequest(ctx) ?? ""),
      reply: (ctx) => ({
        toolCalls: [
          { name: "get_inspection_history", args: { kvk_number: KVK.exec(incomingRequest(ctx) ?? "")?.[1] } },
        ],
      }),
    },
    {
      name: "history-by-name",
      when: (ctx) => companyName(incomingRequest(ctx) ?? "") !== undefined,
      reply: (ctx) => ({
        toolCalls: [{ name: "search_companies", args: { name: companyName(incomingRequest(ctx) ?? "") } }],
      }),
    },
  ];
}

interface RegulationHit {
  id: string;
  title: string;
  source: string;
  text: string;
}

function regulationText(ctx: RuleContext): string {
  const data = toolJson(lastToolResult(ctx)) as
    | { query: string; results: RegulationHit[]; disclaimer: string }
    | undefined;
  if (!data) return `Het zoeken in de regelgeving lukte niet: ${ctx.last?.content ?? ""}`;
  if (data.results.length === 0) {
    return `Ik vond geen regels over “${data.query}”. Probeer andere woorden, bijvoorbeeld “koeling”, “allergenen” of “HACCP”.`;
  }
  const lines = ["Dit zeggen de regels (voorbeeldcorpus):", ""];
  for (const hit of data.results) lines.push(`- **${hit.id} — ${hit.title}**: ${hit.text} (${hit.source})`);
  lines.push("", `_${data.disclaimer}_`);
  return lines.join("\n");
}

/**
 * The offline rules of `regulation-agent`: search the (sample) regulation corpus with the question and
 * answer from the articles found, citing their ids; hand other questions back to the general agent.
 *
 * @example
 * const regulation = new RuleChatModel({ rules: regulationRules(), fallback: "…" });
 */
export function regulationRules(): Rule[] {
  return [
    {
      name: "regulation-answer",
      when: (ctx) => lastToolResult(ctx, "search_regulations") !== undefined,
      reply: regulationText,
    },
    {
      name: "regulation-article",
      when: (ctx) => lastToolResult(ctx, "get_regulation") !== undefined,
      reply: (ctx) => {
        const doc = toolJson(lastToolResult(ctx)) as (RegulationHit & { disclaimer: string }) | undefined;
        return doc
          ? `**${doc.id} — ${doc.title}**\n\n${doc.text}\n\nBron: ${doc.source}\n\n_${doc.disclaimer}_`
          : messageText(ctx.last);
      },
    },
    {
      name: "regulation-handback",
      when: (ctx) => {
        const text = incomingRequest(ctx);
        return (
          text !== undefined &&
          ctx.last?.role === "user" &&
          !REGULATION_INTENT.test(text) &&
          (REPORT_INTENT.test(text) || HISTORY_INTENT.test(text))
        );
      },
      reply: { content: BACK_TO_GENERAL, toolCalls: [{ name: "transfer_to_general", args: {} }] },
    },
    {
      name: "regulation-article-by-id",
      when: (ctx) => /\b[A-Z]{2,5}-[A-Z]{0,5}-?\d{2}\b/.test(incomingRequest(ctx) ?? ""),
      reply: (ctx) => ({
        toolCalls: [
          {
            name: "get_regulation",
            args: { id: /\b[A-Z]{2,5}-[A-Z]{0,5}-?\d{2}\b/.exec(incomingRequest(ctx) ?? "")?.[0] },
          },
        ],
      }),
    },
    {
      name: "regulation-search",
      when: (ctx) => {
        const text = incomingRequest(ctx);
        return text !== undefined && text.trim().length > 0;
      },
      reply: (ctx) => ({ toolCalls: [{ name: "search_regulations", args: { query: incomingRequest(ctx) ?? "" } }] }),
    },
  ];
}
