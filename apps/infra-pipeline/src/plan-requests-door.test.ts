/**
 * Issue 35, infra-pipeline findings 1, 2, 3 and 6, through the Agent Server API with the official SDK
 * `Client`: the plan's action follows the request (a setting taken away is an update that changes it,
 * never a delete), every resource named is planned with its own name, the environment the text names
 * wins, "set up" creates, a full name is never prefixed twice, requests outside the pipeline's scope are
 * answered without running a stage, and a plan edited at the gate is checked against the naming policy
 * before it is accepted.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRequest } from "./approval-gates.js";
import type { PlanningOutput } from "./contracts.js";
import { ASSISTANT_ID } from "./graph.js";
import type { PipelineState } from "./state.js";
import { type ApiServer, requestInput, startApiServer } from "./test-support/api-server.js";

let api: ApiServer;
let client: Client;
beforeEach(async () => {
  api = await startApiServer({ INFRA_AGENT_EXECUTOR: "none" });
  client = new Client({ apiUrl: await api.listen(), apiKey: null });
});
afterEach(async () => {
  await api.close();
  vi.unstubAllEnvs();
});

async function ask(text: string, environment = "dev"): Promise<{ threadId: string; state: PipelineState }> {
  const { thread_id } = await client.threads.create();
  await client.runs.wait(thread_id, ASSISTANT_ID, { input: requestInput(text, { environment, dry_run: true }) });
  const state = (await client.threads.getState(thread_id)).values as unknown as PipelineState;
  return { threadId: thread_id, state };
}

const planOf = async (text: string, environment = "dev"): Promise<PlanningOutput> => {
  const { state } = await ask(text, environment);
  if (!state.planning_output) throw new Error(`no plan for ${text}: ${JSON.stringify(state.messages.at(-1))}`);
  return state.planning_output;
};

describe("the plan's action follows the request", () => {
  it.each([
    ["remove versioning from the bucket trellis-dev-logs", "trellis-dev-logs", { versioning: false }],
    ["disable versioning on the trellis-dev-logs bucket", "trellis-dev-logs", { versioning: false }],
    ["remove the public access from bucket trellis-dev-assets", "trellis-dev-assets", { public: false }],
  ])("%s → an update that changes the setting, not a delete", async (text, name, features) => {
    const plan = await planOf(text);
    expect(plan.resources).toMatchObject([{ kind: "s3_bucket", action: "update", name, features }]);
    expect(plan.summary).not.toMatch(/Delete/);
    expect(plan.impact_reasons).not.toContain("deletes infrastructure");
  });

  it("removing versioning writes a versioning resource that suspends it (a change Terraform can see)", async () => {
    const plan = await planOf("remove versioning from the bucket trellis-dev-logs");
    expect(plan.acceptance_criteria.map((c) => c.description)).toContain(
      'Versioning is suspended on S3 bucket "trellis-dev-logs".',
    );
  });

  it.each([
    ["set up an SQS queue for invoices", "create"],
    ["spin up a bucket for exports", "create"],
    ["I need a DynamoDB table for sessions", "create"],
    ["tear down the orders queue", "delete"],
    ["get rid of the exports bucket", "delete"],
    ["deleting the reports topic, please", "delete"],
  ])("%s → %s", async (text, action) => {
    expect((await planOf(text)).resources[0]?.action).toBe(action);
  });
});

describe("every resource named, with its own name", () => {
  it("create S3 buckets for logs and backups → two buckets", async () => {
    const plan = await planOf("create S3 buckets for logs and backups");
    expect(plan.resources.map((r) => [r.kind, r.name])).toEqual([
      ["s3_bucket", "trellis-dev-logs"],
      ["s3_bucket", "trellis-dev-backups"],
    ]);
  });

  it("a bucket for logs and an SQS queue for orders → the queue is trellis-dev-orders", async () => {
    const plan = await planOf("create a bucket for logs and an SQS queue for orders");
    expect(plan.resources.map((r) => [r.kind, r.name])).toEqual([
      ["s3_bucket", "trellis-dev-logs"],
      ["sqs_queue", "trellis-dev-orders"],
    ]);
  });

  it("'the trellis-dev-logs bucket' is named trellis-dev-logs, not trellis-dev-trellis-dev-logs", async () => {
    const plan = await planOf("enable versioning on the trellis-dev-logs bucket");
    expect(plan.resources.map((r) => r.name)).toEqual(["trellis-dev-logs"]);
  });

  it("the environment in the text wins over the session's", async () => {
    const { state } = await ask("create an SQS queue for payments in prod", "dev");
    expect(state.environment).toBe("prd");
    expect(state.planning_output?.resources.map((r) => r.name)).toEqual(["trellis-prd-payments"]);
    expect(state.planning_output?.environment).toBe("prd");
  });
});

describe("requests outside the pipeline get an answer, not every stage", () => {
  it("scale the EKS cluster to 5 nodes → an honest answer; nothing planned", async () => {
    const { state } = await ask("scale the EKS cluster to 5 nodes");
    expect(state.planning_output).toBeNull();
    expect(state.review_output).toBeNull();
    expect(state.error ?? null).toBeNull();
    expect(String(state.messages.at(-1)?.content)).toMatch(
      /^I can't do that here: Kubernetes \(EKS\) clusters and their nodes are outside what this pipeline manages\..*Nothing was planned or changed\./,
    );
  });

  it("how many resources did we deploy? → a query answer", async () => {
    const { state } = await ask("how many resources did we deploy?");
    expect(state.intent).toBe("query");
    expect(state.planning_output).toBeNull();
  });

  it("a create under a name that breaks the naming policy is asked about, not planned", async () => {
    const { state } = await ask("create a bucket named my-logs");
    expect(state.planning_output).toBeNull();
    expect(String(state.messages.at(-1)?.content)).toMatch(
      /^The name "my-logs" breaks the naming policy: dev names follow trellis-dev-<purpose>\. Should I use trellis-dev-my-logs\?/,
    );
  });
});

describe("a gate edit is checked against the naming policy", () => {
  it("an edited plan renaming the bucket against the policy is asked again with the reason; nothing is accepted", async () => {
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, ASSISTANT_ID, {
      input: requestInput("create an S3 bucket for logs in prd", { environment: "prd" }),
    });
    const gate = (await client.threads.getState(thread_id)).tasks.flatMap((t) =>
      t.interrupts.map((i) => i.value as ApprovalRequest),
    )[0];
    const args = gate?.action_requests[0]?.args as PlanningOutput;
    const resource = args.resources[0];
    if (!resource) throw new Error("the plan has no resource");
    const edited = { ...args, resources: [{ ...resource, name: "my-prod-logs" }] };
    await client.runs.wait(thread_id, ASSISTANT_ID, {
      command: { resume: { decisions: [{ type: "edit", edited_action: { name: "infra_plan", args: edited } }] } },
    });
    const snapshot = await client.threads.getState(thread_id);
    const again = snapshot.tasks.flatMap((t) => t.interrupts.map((i) => i.value as ApprovalRequest))[0];
    expect(again?.gate).toBe("plan");
    expect(again?.not_a_decision).toBe(
      'The edited plan names s3_bucket "my-prod-logs", which breaks the naming policy: prd names follow trellis-prd-<purpose> (lowercase letters, digits and "-"). Rename it, or approve the plan as it was.',
    );
    const values = snapshot.values as unknown as PipelineState;
    expect(values.plan_approved).toBeNull();
    expect(values.iac_output).toBeNull();
  });
});
