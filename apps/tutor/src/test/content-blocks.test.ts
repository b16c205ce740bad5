/**
 * A question sent as content blocks — text and an image, as agent-chat-ui and `useStream` send a message
 * with an attachment — through the official SDK `Client` to the tutor served by the Trellis server: the
 * tutor answers the text as it answers the same question sent as a string, and the thread keeps the
 * image (issue 20: content blocks wherever a message's text is read).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { createServer, type TrellisServer } from "@trellis/server";
import { afterAll, beforeAll, expect, it, vi } from "vitest";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const QUESTION = "¿Cómo se evalúa la asignatura?";

let dir: string;
let server: TrellisServer;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tutor-blocks-"));
  vi.stubEnv("TUTOR_DB_PATH", join(dir, "guides.sqlite"));
  vi.stubEnv("LLM_PROVIDER", "offline");
  vi.stubEnv("RAG_URL", "");
  server = await createServer(
    {
      graphs: { tutor: { module: "./src/server-entry.ts", graph: "buildGraph", routes: "buildRoutes" } },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      baseDir: APP_DIR,
    },
    { env: {}, workers: 1 },
  );
  const { url } = await server.listen(0);
  client = new Client({ apiUrl: url, apiKey: null });
});
afterAll(async () => {
  await server?.close();
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

type Values = { messages: Array<{ type?: string; role?: string; content: unknown }> };
const reply = (v: Values) => v.messages.at(-1)?.content;

it("a question with an image attached is answered from its text, and the thread keeps the image", async () => {
  const plain = await client.threads.create();
  const asText = (await client.runs.wait(plain.thread_id, "tutor", {
    input: { messages: [{ type: "human", content: QUESTION }], asignatura: "DS" },
  })) as Values;
  expect(String(reply(asText))).toContain("Examen final escrito (50 %)");

  const attached = await client.threads.create();
  const content = [
    { type: "text", text: QUESTION },
    { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
  ];
  const asBlocks = (await client.runs.wait(attached.thread_id, "tutor", {
    input: { messages: [{ type: "human", content }], asignatura: "DS" },
  })) as Values;
  expect(reply(asBlocks)).toBe(reply(asText));
  expect((await client.runs.list(attached.thread_id)).map((r) => r.status)).toEqual(["success"]);

  const state = await client.threads.getState<Values>(attached.thread_id);
  const question = state.values.messages[0];
  expect(question?.type).toBe("human");
  expect(question?.content).toEqual(content);
});
