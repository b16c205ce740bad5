/**
 * Run as a process of its own by `call-reports.test.ts`: a ReAct agent's plain run (a tally without a
 * call listener) in a process where no tally with one has counted yet, then one with a listener.
 * Prints whether the tool channel had a subscriber after each, as JSON.
 */
import { channel } from "node:diagnostics_channel";
import { TOOL_CALL_CHANNEL, UsageTally, withUsageTally } from "@trellis/core";
import { userMessage } from "@trellis/models";
import { createReactAgent } from "../index.js";
import { broken, script, weather } from "./call-report-fixtures.js";

async function run(tally: UsageTally): Promise<{ calls: number; toolChannelSubscribed: boolean }> {
  const agent = createReactAgent({ model: script(), tools: [weather, broken] });
  await withUsageTally(tally, () => agent.invoke({ messages: [userMessage("weather?")] }));
  return { calls: tally.calls, toolChannelSubscribed: channel(TOOL_CALL_CHANNEL).hasSubscribers };
}

const plain = await run(new UsageTally());
const listening = await run(new UsageTally({ onCall: () => undefined }));
process.stdout.write(JSON.stringify({ plain, listening }));
