// Issue 36: the inspection reporter's phrasing table (phrasing-table.ts, Dutch, our own sentences), run
// over the app's AG-UI WebSocket, one conversation per row; the share answered right is printed and a
// floor asserted.
import { describe, expect, it } from "vitest";
import { WsFrontend } from "./ag-ui-client.js";
import { INSPECTION_PHRASINGS } from "./phrasing-table.js";
import { servedInspectionApp } from "./served-app.js";

const app = servedInspectionApp("inspection-phrasing-");

describe("the inspection reporter's phrasing table, over AG-UI", () => {
  it("answers at least 90 % of the table right (share printed)", async () => {
    expect(INSPECTION_PHRASINGS.length).toBeGreaterThanOrEqual(30);
    const wrong: string[] = [];
    for (const row of INSPECTION_PHRASINGS) {
      const frontend = await WsFrontend.connect(app.server.wsUrl);
      let reply = "";
      for (const message of row.turns) reply = (await frontend.say(message)).texts.join("\n");
      frontend.close();
      const missing = row.contains.filter((s) => !reply.includes(s));
      const extra = (row.not ?? []).filter((s) => reply.includes(s));
      if (missing.length > 0 || extra.length > 0) {
        wrong.push(
          `${row.turns.join(" → ")}: missing ${JSON.stringify(missing)}${extra.length ? `, should not say ${JSON.stringify(extra)}` : ""}\n    got: ${reply.slice(0, 400).replace(/\n/g, " | ")}`,
        );
      }
    }
    const right = INSPECTION_PHRASINGS.length - wrong.length;
    console.log(
      `[inspection-reporter] phrasing table: ${right}/${INSPECTION_PHRASINGS.length} right (${((100 * right) / INSPECTION_PHRASINGS.length).toFixed(0)} %)` +
        (wrong.length ? `\n  ${wrong.join("\n  ")}` : ""),
    );
    expect(right / INSPECTION_PHRASINGS.length).toBeGreaterThanOrEqual(0.9);
  });
});
