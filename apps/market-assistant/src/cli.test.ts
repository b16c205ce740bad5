import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const cli = fileURLToPath(new URL("./cli.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "market-assistant-cli-"));

/** Runs the CLI from its TS sources in a child process, offline, on a SQLite file of its own. */
function marketAssistant(...args: string[]) {
  return run(process.execPath, ["--conditions=@trellis/source", "--import", "tsx", cli, ...args], {
    env: {
      PATH: process.env.PATH,
      MARKET_ASSISTANT_SQLITE_PATH: join(dir, "market-assistant.sqlite"),
    },
    timeout: 30_000,
  });
}

describe("the market-assistant CLI", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps a multi-turn conversation across processes in the embedded SQLite file", async () => {
    const first = await marketAssistant("ask", "--thread", "cli-1", "Tell me about John Keells");
    expect(first.stdout).toContain("John Keells Holdings PLC (JKH) — Capital Goods.");
    expect(first.stdout).toContain(
      "transcripts in sqlite, company graph in sqlite, model rules/market-assistant-offline",
    );
    const second = await marketAssistant("ask", "--thread", "cli-1", "What companies do they own?");
    expect(second.stdout).toContain("I took your question to be about John Keells Holdings PLC");
    expect(second.stdout).toContain('"agent_type":"langgraph"');
  });

  it("prints its usage, and fails on an unknown command", async () => {
    expect((await marketAssistant("--help")).stdout).toContain("market-assistant serve");
    await expect(marketAssistant("frobnicate")).rejects.toMatchObject({ code: 1 });
  });
});
