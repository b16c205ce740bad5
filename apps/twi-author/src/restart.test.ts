import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { createOfflineTwiModel } from "./offline/offline-model.js";
import { conversation, createTestApp, PALLET_REQUEST, tempDir } from "./test/test-app.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const tsx = createRequire(import.meta.url).resolve("tsx");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("a conversation paused at review survives a restart (SQLite)", () => {
  it("another process starts it and exits; this process resumes it to the end", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const { stdout } = await run(
      process.execPath,
      [
        "--conditions=@trellis/source",
        "--import",
        tsx,
        join(here, "test", "paused-conversation-process.ts"),
        dir,
        "conv-restart",
        PALLET_REQUEST,
      ],
      { timeout: 60_000 },
    );
    const child = JSON.parse(stdout.trim()) as { kind: string; pid: number };
    expect(child.kind).toBe("review");
    expect(child.pid).not.toBe(process.pid);

    const model = createOfflineTwiModel();
    const app = createTestApp({ dir, model });
    try {
      expect((await app.graph.getState({ threadId: "conv-restart" })).next).toEqual(["review"]);
      const draft = (await app.assistant.state("conv-restart")).draft;
      expect(await app.assistant.decide("conv-restart", { action: "approved" })).toMatchObject({
        kind: "final_approval",
      });
      const done = await app.assistant.decide("conv-restart", { action: "final_approved" });
      expect(done.kind).toBe("completed");
      expect((await app.assistant.state("conv-restart")).draft).toBe(draft);
      expect(await app.services.audit.get("conv-restart")).toMatchObject({ status: "completed", revision_count: 0 });
      expect(model.calls).toHaveLength(0); // the drafts were written by the other process; no LLM call again
    } finally {
      await app.close();
    }
  });

  it("a new app instance on the same files continues a revision loop", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const first = createTestApp({ dir });
    await first.assistant.start(conversation("c2", PALLET_REQUEST));
    await first.assistant.decide("c2", {
      action: "revision_requested",
      feedback: "Biztonság: Sisak viselése kötelező",
    });
    await first.close();

    const second = createTestApp({ dir });
    try {
      const view = await second.assistant.view("c2");
      expect(view).toMatchObject({ kind: "review", revision: 1 });
      await second.assistant.decide("c2", { action: "approved" });
      const done = await second.assistant.decide("c2", { action: "final_approved" });
      expect(done.kind).toBe("completed");
      expect((await second.assistant.state("c2")).draft).toContain("Sisak viselése kötelező.");
    } finally {
      await second.close();
    }
  });
});
