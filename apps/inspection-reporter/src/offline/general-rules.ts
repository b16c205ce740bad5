import type { Rule, RuleContext, RuleReply } from "@trellis/models";
import { incomingRequest, lastToolResult, toolJson } from "./conversation-reading.js";

/** A report is asked for: "maak een (inspectie)rapport", "verslag", "rapportage". */
export const REPORT_INTENT = /rapport|verslag|rapportage/i;
/** The inspection history of a company is asked for. */
export const HISTORY_INTENT =
  /histori|geschiedenis|eerdere inspecties?|vorige inspecties?|inspectieverleden|eerder geïnspecteerd|laatste inspectie/i;
/** A question about rules and regulations. */
export const REGULATION_INTENT =
  /regel|wet|verordening|\beisen?\b|verplicht|haccp|allergen|temperatuur|koel|vries|hygiënecode|toegestaan|\bmag\b|\bmoet\b|houdbaar|tht|tgt|ongedierte|etiket|kruisbesmetting/i;

/** The help text of the general agent. */
export const GENERAL_HELP =
  "Ik ben de inspectie-assistent. Ik kan u helpen met:\n" +
  "- een inspectierapport maken (bijvoorbeeld: “Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854”);\n" +
  "- de inspectiehistorie van een bedrijf opzoeken (op KVK-nummer of naam);\n" +
  "- vragen over regels voor voedselveiligheid beantwoorden.\n" +
  "U kunt ook uw naam instellen voor op de rapporten (“Mijn naam is …”).";

const NAME = /(?:mijn naam is|noem mij|ik ben inspecteur|ik heet)\s+([^,.!?\n]+)/i;
const REGION = /(?:mijn regio is|ik werk in (?:de )?regio|regio)\s+([^,.!?\n]+)/i;
const DETAIL = /\b(kort|korte|uitgebreid|uitgebreide)\s+antwoord/i;

function settingsPatch(text: string): Record<string, string> | undefined {
  const patch: Record<string, string> = {};
  const name = NAME.exec(text)?.[1]?.trim();
  if (name) patch.inspector_name = name;
  const region = REGION.exec(text)?.[1]?.trim();
  if (region && /mijn regio|ik werk in/i.test(text)) patch.region = region;
  const detail = DETAIL.exec(text)?.[1]?.toLowerCase();
  if (detail) patch.detail_level = detail.startsWith("kort") ? "kort" : "uitgebreid";
  return Object.keys(patch).length ? patch : undefined;
}

/** Tests the request the agent has to act on: the user's message, also right after a handback. */
function asks(pattern: RegExp): (ctx: RuleContext) => boolean {
  return (ctx) => pattern.test(incomingRequest(ctx) ?? "");
}

function handoff(tool: string, content: string): RuleReply {
  return { content, toolCalls: [{ name: tool, args: {} }] };
}

function settingsSaved(ctx: RuleContext): string {
  const result = lastToolResult(ctx, "update_user_settings");
  if (result?.status === "error") return `Dat kon ik niet opslaan: ${result.content.replace(/^Error:\s*/, "")}`;
  const saved = (toolJson(result)?.saved ?? {}) as Record<string, string>;
  const labels: Record<string, string> = { inspector_name: "naam", region: "regio", detail_level: "detailniveau" };
  const parts = Object.entries(saved).map(([k, v]) => `${labels[k] ?? k}: ${v}`);
  return `Uw instellingen zijn opgeslagen (${parts.join(", ")}). Waarmee kan ik u helpen?`;
}

/**
 * The offline rules of `general-agent`: settings first, then a handoff by intent (report, history,
 * regulation), then greetings and help. A reply such as "hoofdstraat 2, ja, nee" that reaches it by
 * mistake gets the help text, never a settings update.
 *
 * @example
 * const general = new RuleChatModel({ rules: generalRules(), fallback: GENERAL_HELP });
 */
export function generalRules(): Rule[] {
  return [
    {
      name: "settings-saved",
      when: (ctx) => lastToolResult(ctx, "update_user_settings") !== undefined,
      reply: settingsSaved,
    },
    {
      name: "update-settings",
      when: (ctx) => settingsPatch(incomingRequest(ctx) ?? "") !== undefined,
      reply: (ctx) => ({
        toolCalls: [{ name: "update_user_settings", args: settingsPatch(incomingRequest(ctx) ?? "") ?? {} }],
      }),
    },
    {
      name: "to-reporting",
      when: asks(REPORT_INTENT),
      reply: handoff("transfer_to_reporting", "Ik geef u door aan de rapportage-assistent."),
    },
    {
      name: "to-history",
      when: asks(HISTORY_INTENT),
      reply: handoff("transfer_to_history", "Ik geef u door aan de assistent voor inspectiehistorie."),
    },
    {
      name: "to-regulation",
      when: asks(REGULATION_INTENT),
      reply: handoff("transfer_to_regulation", "Ik geef u door aan de assistent voor regelgeving."),
    },
    {
      name: "greeting",
      when: /^(hallo|hoi|hey|dag|goedemorgen|goedemiddag|goedenavond)\b/i,
      reply: `Goedendag! ${GENERAL_HELP}`,
    },
  ];
}
