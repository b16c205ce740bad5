/**
 * Hosted by the Trellis server under the assistant id `infra-pipeline`, as the repository's
 * `trellis.json` registers it: a request runs through the Agent Server API, pauses at both gates and
 * is resumed with `command: { resume }`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, loadConfig, type TrellisServer } from "@trellis/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ASSISTANT_ID } from "./graph.js";

const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

let dir: string;
let server: TrellisServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "infra-server-"));
  vi.stubEnv("INFRA_AGENT_DATA_DIR", join(dir, "data"));
  vi.stubEnv("INFRA_AGENT_MODEL_PROVIDER", "offline");
  vi.stubEnv("TRELLIS_MODEL_PROVIDER", "offline");
  vi.stubEnv("INFRA_AGENT_EXECUTOR", "none");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

async function post(s: TrellisServer, path: string, body: unknown) {
  const res = await s.app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe(`the "${ASSISTANT_ID}" assistant of trellis.json`, () => {
  it("runs a prd request through the Agent Server API, pausing at the plan and deploy gates", async () => {
    const config = await loadConfig(join(REPO_DIR, "trellis.json"));
    const entry = config.graphs[ASSISTANT_ID];
    expect(entry).toMatchObject({ graph: "createGraph" });
    server = await createServer(
      {
        graphs: { [ASSISTANT_ID]: entry as NonNullable<typeof entry> },
        saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
        baseDir: REPO_DIR,
      },
      { env: {}, workers: 1 },
    );
    const s = server;
    const thread = (await post(s, "/threads", {})).json as { thread_id: string };
    const wait = (body: Record<string, unknown>) =>
      post(s, `/threads/${thread.thread_id}/runs/wait`, { assistant_id: ASSISTANT_ID, ...body });

    const planGate = await wait({
      input: {
        messages: [{ role: "user", content: "create an S3 bucket for logs in prd with versioning" }],
        environment: "prd",
      },
    });
    expect(planGate.status).toBe(200);
    expect(planGate.json.pending_approval).toBe("plan");
    const interrupts = planGate.json.__interrupt__ as Array<{ value: { gate: string; question: string } }>;
    expect(interrupts[0]?.value).toMatchObject({ gate: "plan", question: "Approve the plan?" });

    // a new request while the plan waits for its approval is refused: the gate must be answered first
    const meanwhile = await wait({ input: { messages: [{ role: "user", content: "also a queue" }] } });
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.json.error).toBe("THREAD_PAUSED");

    const deployGate = await wait({ command: { resume: true } });
    expect(deployGate.json).toMatchObject({ review_status: "passed", retry_count: 1, pending_approval: "deploy" });

    const done = await wait({ command: { resume: { approved: true } } });
    // no executor (INFRA_AGENT_EXECUTOR=none): the approved deployment is refused, never simulated
    expect(done.json).toMatchObject({ current_agent: "end_success", deployment_output: { status: "refused" } });
    expect(done.json.request_id).toMatch(/^req-\d{8}-\d{6}-[0-9a-f]{6}$/);
    const graph = s.graphs.get(ASSISTANT_ID)?.graph;
    expect((await graph?.getState({ threadId: thread.thread_id }))?.next).toEqual([]);
  });
});
