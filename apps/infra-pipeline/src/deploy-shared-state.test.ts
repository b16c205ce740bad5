/**
 * Issue 35, infra-pipeline findings 1, 4 and 5, through the Agent Server API on the local Terraform
 * target (the real binary, offline, built-in `terraform_data` only): each environment's state is
 * shared across requests, so a create, an update ("remove versioning" is a setting changed, not a
 * bucket deleted) and a delete in three separate conversations act on what was deployed — locally by
 * default, and on Terraform's `pg` backend on the project's PostgreSQL. A delete's configuration is
 * valid JSON Terraform (no `"terraform_data": {}`). Needs terraform or tofu (and PostgreSQL for the pg
 * case): skipped loudly without them, failing under CI=true.
 */
import { randomUUID } from "node:crypto";
import { requireService } from "@trellis/checkpoint/testing";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { DeploymentOutput, PlanningOutput } from "./contracts.js";
import { findExecutor } from "./deploy/executor.js";
import { type ApiServer, requestInput, startApiServer } from "./test-support/api-server.js";

/** The project's test PostgreSQL (as the savers' tests reach it). */
const POSTGRES_URL = process.env.TRELLIS_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const found = findExecutor({ ...process.env, INFRA_AGENT_EXECUTOR: "auto", INFRA_AGENT_TF_TARGET: "local" });
const executorHere = await requireService(
  "terraform or tofu",
  async () => {
    if (!found.executor) throw new Error(found.reason);
  },
  { hint: "install terraform (https://developer.hashicorp.com/terraform/install) or tofu and put it on PATH" },
);
const postgresHere = await requireService("PostgreSQL", async () => {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.end();
});

let api: ApiServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** One conversation: the request, every gate approved; the plan and the deployment. */
async function converse(server: ApiServer, text: string) {
  const thread = await server.thread();
  let state = await thread.wait({ input: requestInput(text, { environment: "dev", dry_run: false }) });
  for (let i = 0; i < 3 && state.json.pending_approval; i += 1) {
    state = await thread.wait({ command: { resume: { decisions: [{ type: "approve" }] } } });
  }
  expect(state.status).toBe(200);
  return {
    plan: state.json.planning_output as PlanningOutput,
    deployment: state.json.deployment_output as DeploymentOutput,
  };
}

const planLine = (d: DeploymentOutput) =>
  /Plan: .*\./.exec(d.steps.find((s) => / plan /.test(s.command))?.output ?? "")?.[0];
const applyLine = (d: DeploymentOutput) =>
  /Apply complete! .*\./.exec(d.steps.find((s) => / apply /.test(s.command))?.output ?? "")?.[0];

async function createUpdateDelete(server: ApiServer) {
  const created = await converse(server, "create an S3 bucket for logs with versioning");
  expect(created.deployment.status).toBe("applied");
  expect(applyLine(created.deployment)).toMatch(/Resources: [1-9]\d* added, 0 changed, 0 destroyed\./);

  // a later conversation: the setting changes on the deployed bucket, nothing is re-created or deleted
  const updated = await converse(server, "remove versioning from the bucket trellis-dev-logs");
  expect(updated.plan.resources).toMatchObject([
    { kind: "s3_bucket", action: "update", name: "trellis-dev-logs", features: { versioning: false } },
  ]);
  expect(updated.plan.summary).toBe("Update S3 bucket trellis-dev-logs (versioning suspended) in dev.");
  expect(updated.deployment.status).toBe("applied");
  expect(planLine(updated.deployment)).toMatch(/Plan: 0 to add, [1-9]\d* to change, 0 to destroy\./);
  const versioning = updated.deployment.criteria.find((c) => /Versioning is suspended/.test(c.description));
  expect(versioning?.passed).toBe(true);

  // a third conversation deletes what the first deployed
  const deleted = await converse(server, "delete the trellis-dev-logs bucket");
  expect(deleted.plan.resources).toMatchObject([{ action: "delete", name: "trellis-dev-logs" }]);
  expect(deleted.deployment.status).toBe("applied");
  expect(applyLine(deleted.deployment)).toMatch(/Resources: 0 added, 0 changed, [1-9]\d* destroyed\./);
  expect(deleted.deployment.criteria.every((c) => c.passed)).toBe(true);
}

describe.skipIf(!executorHere)("one state per environment, shared by every request", () => {
  it("local state (the default): create → update → delete in three conversations act on what was deployed", async () => {
    api = await startApiServer({ INFRA_AGENT_EXECUTOR: "auto", INFRA_AGENT_TF_TARGET: "local" });
    await createUpdateDelete(api);
  });

  it("a second resource in another conversation leaves the first one deployed", async () => {
    api = await startApiServer({ INFRA_AGENT_EXECUTOR: "auto", INFRA_AGENT_TF_TARGET: "local" });
    await converse(api, "create an S3 bucket for logs");
    const queue = await converse(api, "set up an SQS queue for orders");
    expect(queue.plan.resources).toMatchObject([{ kind: "sqs_queue", action: "create", name: "trellis-dev-orders" }]);
    expect(planLine(queue.deployment)).toMatch(/Plan: 1 to add, 0 to change, 0 to destroy\./);
  });

  it.skipIf(!postgresHere)(
    "Terraform's pg backend on the project's PostgreSQL: the same three conversations",
    async () => {
      const schema = `infra_t_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
      try {
        api = await startApiServer({
          INFRA_AGENT_EXECUTOR: "auto",
          INFRA_AGENT_TF_TARGET: "local",
          INFRA_AGENT_TF_STATE: "pg",
          INFRA_AGENT_TF_STATE_PG: `${POSTGRES_URL}?sslmode=disable`,
          INFRA_AGENT_TF_STATE_PG_SCHEMA: schema,
        });
        await createUpdateDelete(api);
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        try {
          const rows = await client.query(`SELECT name FROM ${schema}_dev.states`);
          expect(rows.rows.map((r) => r.name)).toEqual(["default"]);
        } finally {
          await client.end();
        }
      } finally {
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema}_dev CASCADE`);
        await client.end();
      }
    },
  );
});
