/**
 * Issue 33 (the audit of every app's per-thread data): a request's files live in
 * `<data>/artifacts/<request_id>`, and `request_id` is something a client may put in its input. With
 * the server's auth on and two users over the Agent Server API (the official SDK), bob's conversation
 * naming alice's request id is refused and leaves her plan as it was.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { createServer, loadConfig, type TrellisServer } from "@trellis/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ASSISTANT_ID } from "./graph.js";

const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const dir = mkdtempSync(join(tmpdir(), "infra-owner-"));
let server: TrellisServer;
let url: string;

beforeAll(async () => {
  vi.stubEnv("INFRA_AGENT_DATA_DIR", join(dir, "data"));
  vi.stubEnv("INFRA_AGENT_MODEL_PROVIDER", "offline");
  vi.stubEnv("TRELLIS_MODEL_PROVIDER", "offline");
  vi.stubEnv("INFRA_AGENT_EXECUTOR", "none");
  const entry = (await loadConfig(join(REPO_DIR, "trellis.json"))).graphs[ASSISTANT_ID];
  server = await createServer(
    {
      graphs: { [ASSISTANT_ID]: entry as NonNullable<typeof entry> },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      baseDir: REPO_DIR,
      auth: {
        enabled: true,
        credentials: [
          { user: "alice", apiKey: "key-alice" },
          { user: "bob", apiKey: "key-bob" },
        ],
      },
    },
    { env: {}, workers: 1 },
  );
  url = (await server.listen(0)).url;
});
afterAll(async () => {
  await server?.close();
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

describe("a request's files belong to the conversation that planned it", () => {
  it("bob naming alice's request id is refused, and her plan stays hers", async () => {
    const request = (content: string) => ({
      input: { messages: [{ role: "user", content }], environment: "dev", request_id: "req-shared" },
    });
    const alice = new Client({ apiUrl: url, apiKey: "key-alice" });
    const mine = await alice.threads.create();
    const planned = (await alice.runs.wait(mine.thread_id, ASSISTANT_ID, request("create an S3 bucket for logs"))) as {
      request_id?: string;
      pending_approval?: string;
    };
    expect(planned).toMatchObject({ request_id: "req-shared", pending_approval: "deploy" });
    const planFile = join(dir, "data", "artifacts", "req-shared", "plan.json");
    const before = readFileSync(planFile, "utf8");

    const bob = new Client({ apiUrl: url, apiKey: "key-bob" });
    const his = await bob.threads.create();
    const res = await fetch(`${url}/threads/${his.thread_id}/runs/wait`, {
      method: "POST",
      headers: { "x-api-key": "key-bob", "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: ASSISTANT_ID, ...request("create an SQS queue for orders") }),
    });
    const refused = (await res.json()) as { __error__?: { error: string; message: string } };
    expect(refused.__error__).toMatchObject({ error: "CONFLICT" });
    expect(refused.__error__?.message).toContain('Request id "req-shared" belongs to another conversation');
    expect(readFileSync(planFile, "utf8")).toBe(before);
    // bob's thread planned nothing; alice's goes on
    expect(
      ((await bob.threads.getState(his.thread_id)).values as { planning_output?: unknown }).planning_output ?? null,
    ).toBeNull();
    const done = await alice.runs.wait(mine.thread_id, ASSISTANT_ID, { command: { resume: { approved: false } } });
    expect(done).toMatchObject({ request_id: "req-shared" });
  });
});
