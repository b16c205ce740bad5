import { RuleChatModel } from "@trellis/models";
import type { AgentId } from "../agents/agent-definitions.js";
import { frontendToolRules } from "./frontend-tool-rules.js";
import { GENERAL_HELP, generalRules } from "./general-rules.js";
import { reportingRules } from "./reporting-rules.js";
import { historyRules, regulationRules } from "./specialist-rules.js";

/**
 * The deterministic Dutch offline models, one per agent: what the app runs on when no provider is
 * configured (and what the tests drive). `calls` on each model shows which rule answered, so a test
 * can check which agents took part in a turn.
 *
 * @example
 * const models = createOfflineModels();
 * models["general-agent"].calls.length; // 0 until the general agent is asked something
 */
export function createOfflineModels(): Record<AgentId, RuleChatModel> {
  return {
    "general-agent": new RuleChatModel({
      model: "inspection-general-rules",
      rules: [...frontendToolRules(), ...generalRules()],
      fallback: GENERAL_HELP,
    }),
    "history-agent": new RuleChatModel({
      model: "inspection-history-rules",
      rules: historyRules(),
      fallback: "Van welk bedrijf wilt u de inspectiehistorie zien? Geef het KVK-nummer (8 cijfers) of de naam.",
    }),
    "regulation-agent": new RuleChatModel({
      model: "inspection-regulation-rules",
      rules: regulationRules(),
      fallback: "Welke regel wilt u nazoeken? Bijvoorbeeld: “Hoe koud moet een koelcel zijn?”",
    }),
    "reporting-agent": new RuleChatModel({
      model: "inspection-reporting-rules",
      rules: reportingRules(),
      fallback: "Voor welk bedrijf wilt u een inspectierapport maken? Noem de naam en het KVK-nummer.",
    }),
  };
}
