/**
 * Issue 20 item 4, infra-pipeline: both approval gates offer LangChain's human-in-the-loop request, so
 * the official SDK `Client` (what `useStream` and agent-chat-ui use) answers them with `{ decisions }`:
 * approve, edit (plan gate: the edited plan is what is approved, recorded and implemented) and reject
 * with a message. A malformed decision re-asks with the reason and never acts. The app's own answers
 * (`true`, `"yes"`, `{ approved }`) keep working (`gate-answers.test.ts`, `server-hosting.test.ts`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
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

const PRD_REQUEST = requestInput("create an S3 bucket for logs in prd with versioning", { environment: "prd" });

/** The thread's pending interrupt values, as a client reads them from the thread's state. */
async function pending(threadId: string): Promise<ApprovalRequest[]> {
  const state = await client.threads.getState(threadId);
  return state.tasks.flatMap((t) => t.interrupts.map((i) => i.value as ApprovalRequest));
}

async function values(threadId: string): Promise<PipelineState> {
  return (await client.threads.getState(threadId)).values as unknown as PipelineState;
}

async function atPlanGate(): Promise<string> {
  const { thread_id } = await client.threads.create();
  await client.runs.wait(thread_id, ASSISTANT_ID, { input: PRD_REQUEST });
  return thread_id;
}

const resume = (threadId: string, answer: unknown) =>
  client.runs.wait(threadId, ASSISTANT_ID, { command: { resume: answer } });

describe("the gates in LangChain's HITL shape, answered by the SDK Client", () => {
  it("the plan gate asks with action_requests/review_configs; the deploy gate allows approve and reject only", async () => {
    const threadId = await atPlanGate();
    const [plan] = await pending(threadId);
    expect(plan?.gate).toBe("plan");
    expect(plan?.action_requests).toEqual([
      expect.objectContaining({
        name: "infra_plan",
        args: expect.objectContaining({ environment: "prd", resources: expect.any(Array) }),
      }),
    ]);
    expect(plan?.action_requests[0]?.description).toMatch(/^Approve the plan\?/);
    expect(plan?.review_configs).toEqual([
      { action_name: "infra_plan", allowed_decisions: ["approve", "edit", "reject"] },
    ]);
    // one spelling over the API: LangChain's snake_case (the camelCase twins stay in the process)
    expect(plan).not.toHaveProperty("actionRequests");
    expect(plan).not.toHaveProperty("reviewConfigs");

    await resume(threadId, { decisions: [{ type: "approve" }] });
    const [deploy] = await pending(threadId);
    expect(deploy?.gate).toBe("deploy");
    expect(deploy?.review_configs).toEqual([{ action_name: "infra_deploy", allowed_decisions: ["approve", "reject"] }]);
    expect((deploy?.action_requests[0]?.args as { files?: string[] } | undefined)?.files?.length).toBeGreaterThan(0);

    await resume(threadId, { decisions: [{ type: "approve" }] });
    const done = await values(threadId);
    expect(done.plan_approved).toBe(true);
    expect(done.deploy_approved).toBe(true);
    // approved, but no executor here: refused, never reported as deployed
    expect(done.deployment_output?.status).toBe("refused");
    expect(await pending(threadId)).toEqual([]);
  });

  it("an edit at the plan gate is the plan approved, recorded and implemented", async () => {
    const threadId = await atPlanGate();
    const [gate] = await pending(threadId);
    const args = gate?.action_requests[0]?.args as PlanningOutput;
    const resource = args.resources[0];
    if (!resource) throw new Error("the plan has no resource");
    const edited = { ...args, resources: [{ ...resource, features: { ...resource.features, kms: true } }] };
    await resume(threadId, { decisions: [{ type: "edit", edited_action: { name: "infra_plan", args: edited } }] });

    const state = await values(threadId);
    expect(state.plan_approved).toBe(true);
    expect(state.planning_output?.resources[0]?.features.kms).toBe(true);
    expect(state.messages.map((m) => m.content)).toContain(`Plan edited and approved: ${args.summary}`);
    // the stored plan record is the edited one
    const record = JSON.parse(
      readFileSync(join(api.dir, "data", "artifacts", state.request_id, "plan.json"), "utf8"),
    ) as PlanningOutput;
    expect(record.resources[0]?.features.kms).toBe(true);
    // and the Terraform files implement it (a KMS key for the bucket)
    const main = (state.iac_output?.files ?? [])
      .map((f) => readFileSync(join(state.iac_output?.directory ?? "", f.path), "utf8"))
      .join("\n");
    expect(main).toMatch(/aws_kms_key/);
  });

  it("reject with a message at the plan gate ends the request with the message; nothing is implemented", async () => {
    const threadId = await atPlanGate();
    await resume(threadId, { decisions: [{ type: "reject", message: "not in prd this week" }] });
    const state = await values(threadId);
    expect(state).toMatchObject({ plan_approved: false, current_agent: "rejected", iac_output: null });
    expect(state.messages.map((m) => m.content)).toContain("Plan rejected. not in prd this week");
    expect(await pending(threadId)).toEqual([]);
  });

  it("reject at the deploy gate: nothing is deployed", async () => {
    const threadId = await atPlanGate();
    await resume(threadId, { decisions: [{ type: "approve" }] });
    await resume(threadId, { decisions: [{ type: "reject", message: "wait for the change window" }] });
    const state = await values(threadId);
    expect(state).toMatchObject({ deploy_approved: false, current_agent: "rejected", deployment_output: null });
    expect(state.messages.map((m) => m.content)).toContain("Deployment rejected. wait for the change window");
  });

  it.each([
    ["an unknown decision type", { decisions: [{ type: "maybe" }] }, /not one of approve, edit, reject/],
    ["no decision", { decisions: [] }, /one decision per action request/],
    ["an edit without edited_action", { decisions: [{ type: "edit" }] }, /an edit needs editedAction/],
    [
      "an edit that changes the environment",
      { decisions: [{ type: "edit", edited_action: { name: "infra_plan", args: { environment: "dev" } } }] },
      /keeps its environment \("prd"\)/,
    ],
    [
      "an edit leaving an invalid plan",
      { decisions: [{ type: "edit", edited_action: { name: "infra_plan", args: { resources: [{ kind: "vm" }] } } }] },
      /The edited plan is not valid: resources\.0\./,
    ],
  ])("%s re-asks at the plan gate with the reason and acts on nothing", async (_what, answer, reason) => {
    const threadId = await atPlanGate();
    const before = await values(threadId);
    await resume(threadId, answer);
    const [gate] = await pending(threadId);
    expect(gate?.gate).toBe("plan");
    expect(gate?.not_a_decision).toMatch(reason);
    const after = await values(threadId);
    expect(after).toMatchObject({ plan_approved: null, pending_approval: "plan", iac_output: null });
    expect(after.planning_output).toEqual(before.planning_output);
    // a later valid decision still applies
    await resume(threadId, { decisions: [{ type: "approve" }] });
    expect((await pending(threadId))[0]?.gate).toBe("deploy");
  });

  it("the deploy gate takes no edit: the deployment is the reviewed files as they are", async () => {
    const threadId = await atPlanGate();
    await resume(threadId, { decisions: [{ type: "approve" }] });
    await resume(threadId, { decisions: [{ type: "edit", edited_action: { name: "infra_deploy", args: {} } }] });
    const [gate] = await pending(threadId);
    expect(gate?.gate).toBe("deploy");
    expect(gate?.not_a_decision).toMatch(/not one of approve, reject/);
    expect((await values(threadId)).deployment_output).toBeNull();
  });
});
