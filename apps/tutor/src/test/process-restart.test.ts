import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const children: ChildProcess[] = [];
let dir: string | undefined;

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Starts the standalone tutor (`main()`) in a child process from the TS sources; resolves its URL. */
function startProcess(dbPath: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      "--conditions=@trellis/source",
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      "import { main } from './src/main.ts'; await main();",
    ],
    {
      cwd: APP_DIR,
      env: { ...process.env, PORT: "0", TUTOR_DB_PATH: dbPath, LLM_PROVIDER: "offline", RAG_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  return new Promise((resolveUrl, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`the tutor did not start: ${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolveUrl({ child, url });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the tutor exited with ${code}: ${output}`)));
  });
}

async function post(url: string, body: unknown) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await res.json()) as {
    message: string;
    interrupted: boolean;
    interrupt_info: { question_num: number; question_text: string } | null;
  };
}

describe("standalone server process", () => {
  it("killed in the middle of a test, a new process on the same SQLite file resumes at the right question", async () => {
    dir = mkdtempSync(join(tmpdir(), "tutor-proc-"));
    const db = join(dir, "tutor.sqlite");
    const first = await startProcess(db);
    const start = await post(`${first.url}/chat`, {
      query: "Hazme un test de 4 preguntas sobre SOLID",
      id: "p",
      asignatura: "DS",
    });
    expect(start.interrupt_info?.question_num).toBe(1);
    const second = await post(`${first.url}/resume_chat`, { id: "p", user_response: "A" });
    expect(second.interrupt_info?.question_num).toBe(2);
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));

    const restarted = await startProcess(db);
    const third = await post(`${restarted.url}/apps/tutor/resume_chat`, { id: "p", user_response: "B" });
    expect(third.interrupt_info?.question_num).toBe(3);
    expect(third.message).toMatch(/^(✅|❌) /);
    await post(`${restarted.url}/resume_chat`, { id: "p", user_response: "C" });
    const end = await post(`${restarted.url}/resume_chat`, { id: "p", user_response: "D" });
    expect(end.interrupted).toBe(false);
    expect(end.message).toMatch(/📊 Resultado del test sobre «SOLID»: \d\/4 correctas/);
  }, 60_000);
});
