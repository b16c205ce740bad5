/**
 * The agents with a model: planning and IaC ask the model (scripted here) for JSON that the contracts
 * accept; the static review sends the model's mistakes back; approval policy stays with the pipeline.
 */
import { ScriptedChatModel } from "@trellis/models";
import { afterEach, describe, expect, it } from "vitest";
import { modelFromEnv } from "../app-config.js";
import { parseJson } from "../llm/structured-output.js";
import { collect, nodesOf, type PipelineFixture, pipelineFixture } from "../test-support/pipeline-fixture.js";

const TAGS =
  '{ Environment = "dev", Project = "trellis", Owner = "platform-team", ManagedBy = "terraform", RequestId = "req-test-1" }';

const PLAN = {
  summary: "Create the reports bucket in dev.",
  resources: [
    {
      kind: "s3_bucket",
      action: "create",
      label: "reports",
      name: "trellis-dev-reports",
      purpose: "reports",
      features: {},
    },
  ],
  requirements: [
    { id: "REQ-1", description: "Create bucket trellis-dev-reports.", source: "request" },
    { id: "REQ-2", description: "Encrypt it at rest.", source: "policy" },
  ],
  acceptance_criteria: [
    {
      id: "AC-1",
      description: "The bucket exists.",
      check: { type: "resource_exists", resource_type: "aws_s3_bucket", name: "trellis-dev-reports" },
    },
    {
      id: "AC-2",
      description: "It is encrypted.",
      check: { type: "encrypted_at_rest", subject: "aws_s3_bucket.reports" },
    },
  ],
  cost_estimate: "about $2/month",
  impact: "low",
  impact_reasons: ["one new bucket"],
  requires_approval: false,
};

const MAIN_TF = `provider "aws" {
  region = "eu-west-1"
}

resource "aws_s3_bucket" "reports" {
  bucket = "trellis-dev-reports"
  tags   = ${TAGS}
}

resource "aws_s3_bucket_public_access_block" "reports" {
  bucket                  = aws_s3_bucket.reports.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}
`;

const SSE = `
resource "aws_s3_bucket_server_side_encryption_configuration" "reports" {
  bucket = aws_s3_bucket.reports.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}
`;

let f: PipelineFixture | undefined;
afterEach(async () => {
  await f?.cleanup();
  f = undefined;
});

describe("LLM-backed agents", () => {
  it("plan and Terraform come from the model; the review's findings go back to it; it fixes them", async () => {
    const model = new ScriptedChatModel([
      `Here is the plan:\n\`\`\`json\n${JSON.stringify(PLAN)}\n\`\`\``,
      JSON.stringify({ files: [{ path: "main.tf", content: MAIN_TF }], notes: ["first draft"] }),
      JSON.stringify({ files: [{ path: "main.tf", content: MAIN_TF + SSE }], notes: ["added SSE-S3 encryption"] }),
    ]);
    f = await pipelineFixture({ model });
    const events = await collect(f.pipeline.stream("create a bucket for reports", { environment: "dev" }));
    expect(nodesOf(events)).toEqual(["orchestrator", "planning", "plan_approval", "iac", "review", "iac", "review"]);
    await collect(f.pipeline.streamWithApproval("req-test-1", true));

    const { values, outcome } = await f.pipeline.status("req-test-1");
    expect(outcome).toBe("refused");
    expect(values.planning_output).toMatchObject({
      generated_by: "scripted:scripted",
      summary: PLAN.summary,
      requires_approval: false,
    });
    expect(values.iac_output).toMatchObject({
      generated_by: "scripted:scripted",
      revision: 2,
      changes: ["added SSE-S3 encryption"],
    });
    expect(values.deployment_output?.criteria.map((c) => [c.id, c.passed])).toEqual([
      ["AC-1", true],
      ["AC-2", true],
    ]);
    expect(model.remaining).toBe(0);

    // The plan prompt carries the contract as JSON Schema; the retry carries the finding and the file.
    expect(model.calls[0]?.messages[0]?.content).toContain('"acceptance_criteria"');
    const retry = String(model.calls[2]?.messages.at(-1)?.content);
    expect(retry).toContain("Retry 1: the review asks for a revision.");
    expect(retry).toContain("- [error] ENCRYPTION_MISSING aws_s3_bucket.reports main.tf:5");
    expect(retry).toContain(`--- main.tf\n${MAIN_TF}`);
  });

  it("the model cannot waive approval: prd plans need it whatever the model says", async () => {
    const model = new ScriptedChatModel([JSON.stringify({ ...PLAN, requires_approval: false })]);
    f = await pipelineFixture({ model });
    const events = await collect(f.pipeline.stream("create a bucket for reports", { environment: "prd" }));
    expect(events.find((e) => e.type === "approval")).toMatchObject({ request: { gate: "plan" } });
    const { values } = await f.pipeline.status("req-test-1");
    expect(values.planning_output).toMatchObject({
      requires_approval: true,
      approval_reasons: ["changes in prd always need approval"],
      generated_by: "scripted:scripted",
    });
  });

  it("invalid replies are sent back once, then the offline planner takes over", async () => {
    const model = new ScriptedChatModel(["not json", JSON.stringify({ summary: "missing everything" })]);
    f = await pipelineFixture({ model });
    await collect(f.pipeline.stream("create an S3 bucket for logs in prd with versioning", { environment: "prd" }));
    const { values } = await f.pipeline.status("req-test-1");
    expect(values.planning_output?.generated_by).toMatch(
      /^offline \(fallback: The scripted model "scripted" gave no valid JSON after 2 attempt\(s\)/,
    );
    expect(values.planning_output?.resources.map((r) => r.name)).toEqual(["trellis-prd-logs"]);
    expect(String(model.calls[1]?.messages.at(-1)?.content)).toMatch(
      /^That reply was not valid:\nthe reply is not valid JSON/,
    );
  });

  it("queries and conversation go to the model, queries with the inventory", async () => {
    const model = new ScriptedChatModel(["You have no buckets yet.", "Hi there!"]);
    f = await pipelineFixture({ model });
    await collect(f.pipeline.stream("list my buckets", { environment: "dev" }));
    await collect(f.pipeline.stream("hello", { environment: "dev" }));
    expect((await f.pipeline.status("req-test-1")).values.messages.at(-1)?.content).toBe("You have no buckets yet.");
    expect((await f.pipeline.status("req-test-2")).values.messages.at(-1)?.content).toBe("Hi there!");
    expect(model.calls[0]?.messages[0]?.content).toMatch(/inventory of requests \(JSON\):\n\[\]$/);
  });
});

describe("model configuration", () => {
  it("offline unless INFRA_AGENT_MODEL_* or TRELLIS_MODEL_* name a provider", () => {
    expect(modelFromEnv({})).toBeUndefined();
    expect(modelFromEnv({ INFRA_AGENT_MODEL_PROVIDER: "offline" })).toBeUndefined();
    const model = modelFromEnv({
      INFRA_AGENT_MODEL_PROVIDER: "openai",
      INFRA_AGENT_MODEL: "gpt-4o-mini",
      OPENAI_API_KEY: "k",
    });
    expect(model).toMatchObject({ provider: "openai", model: "gpt-4o-mini" });
    expect(modelFromEnv({ TRELLIS_MODEL_PROVIDER: "ollama", TRELLIS_MODEL: "llama3.2" })).toMatchObject({
      provider: "ollama",
    });
    expect(() => modelFromEnv({ INFRA_AGENT_MODEL_PROVIDER: "openai" })).toThrow("INFRA_AGENT_MODEL");
  });

  it("parseJson finds the JSON in a reply", () => {
    expect(parseJson('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJson('Sure!\n```json\n{"a":2}\n```\nDone.')).toEqual({ ok: true, value: { a: 2 } });
    expect(parseJson('The answer is {"a":3}.')).toEqual({ ok: true, value: { a: 3 } });
    expect(parseJson("nothing here")).toMatchObject({ ok: false });
  });
});
