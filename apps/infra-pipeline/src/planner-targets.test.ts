/**
 * Issue 22, infra-pipeline finding 1, through the Agent Server API: the planner acts on the resource
 * the request names — written after the resource type, in quotes, or after "named/called" — and when
 * a request names none it asks instead of planning against an invented name.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PlanningOutput } from "./contracts.js";
import { type ApiServer, requestInput, startApiServer } from "./test-support/api-server.js";

let api: ApiServer;
beforeEach(async () => {
  api = await startApiServer();
});
afterEach(async () => {
  await api.close();
});

async function planFor(text: string): Promise<{ json: Record<string, unknown>; plan: PlanningOutput | null }> {
  const thread = await api.thread();
  const res = await thread.wait({ input: requestInput(text, { environment: "dev" }) });
  expect(res.status).toBe(200);
  return { json: res.json, plan: res.json.planning_output as PlanningOutput | null };
}

describe("the planner targets the resource the request names", () => {
  it.each([
    "delete the S3 bucket trellis-dev-logs",
    'delete S3 bucket "trellis-dev-logs"',
    "delete the bucket called trellis-dev-logs in dev",
    "please remove s3://trellis-dev-logs",
  ])("%s → a plan to delete trellis-dev-logs, waiting at the plan gate", async (text) => {
    const { json, plan } = await planFor(text);
    expect(plan?.resources.map((r) => [r.action, r.kind, r.name])).toEqual([
      ["delete", "s3_bucket", "trellis-dev-logs"],
    ]);
    expect(json.pending_approval).toBe("plan");
  });

  it("a request that names no resource is answered with a question: no plan, no gate, no invented name", async () => {
    const { json, plan } = await planFor("delete the S3 bucket");
    expect(plan).toBeNull();
    expect(json.__interrupt__).toBeUndefined();
    const messages = json.messages as Array<{ content: string }>;
    expect(messages.at(-1)?.content).toMatch(/^Which S3 bucket should I delete\?/);
    expect(JSON.stringify(json)).not.toContain("trellis-dev-data");
  });
});
