import { execFile } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { converse } from "./cli.js";
import { conversation, createTestApp, PALLET_REQUEST, type TestApp, tempDir } from "./test/test-app.js";

const here = dirname(fileURLToPath(import.meta.url));
const tsx = createRequire(import.meta.url).resolve("tsx");
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

function scripted(answers: string[]) {
  const prompts: string[] = [];
  return {
    prompts,
    ask: async (prompt: string) => {
      prompts.push(prompt);
      return answers.shift();
    },
  };
}

function output() {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (c: Buffer) => {
    text += c.toString("utf8");
  });
  return { stream, text: () => text };
}

describe("CLI", () => {
  it("pauses at review and at final approval like the other channels", async () => {
    const app: TestApp = createTestApp();
    cleanup.push(() => app.dispose());
    const first = await app.assistant.start(conversation("cli-1", PALLET_REQUEST));
    const { ask, prompts } = scripted(["r", "Ellenőrzés: A címke vonalkódja olvasható", "j", "k"]);
    const out = output();
    const stopped = await converse(app.assistant, first, ask, out.stream);
    expect(stopped.kind).toBe("final_approval");
    expect(out.text()).toContain("Javított vázlat (1. revízió)");
    expect(out.text()).toContain("A címke vonalkódja olvasható.");
    expect(out.text()).toContain("npm run twi -- --resume cli-1");
    expect(prompts.filter((p) => p.includes("[j]óváhagyás"))).toHaveLength(2);

    // Later: resume from where it stopped.
    const later = scripted(["i"]);
    const done = await converse(app.assistant, await app.assistant.view("cli-1"), later.ask, output().stream);
    expect(done.kind).toBe("completed");
  });

  it("runs as a program with answers piped in", async () => {
    const dir = tempDir();
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const child = execFile(
      process.execPath,
      [
        "--conditions=@trellis/source",
        "--import",
        tsx,
        join(here, "cli.ts"),
        "--data-dir",
        dir,
        "--id",
        "demo",
        PALLET_REQUEST,
      ],
      { timeout: 60_000, env: { ...process.env, TWI_MODEL_PROVIDER: "", TRELLIS_MODEL_PROVIDER: "" } },
    );
    let stdout = "";
    child.stdout?.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stdin?.end("e\n");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(stdout).toContain("⚠️ AI által generált tartalom — emberi felülvizsgálat szükséges.");
    expect(stdout).toContain("A vázlatot elutasította.");
    expect(existsSync(join(dir, "checkpoints.sqlite"))).toBe(true);
  });
});
