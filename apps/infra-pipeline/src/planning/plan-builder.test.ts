import { describe, expect, it } from "vitest";
import { PlanningOutput } from "../contracts.js";
import { DEFAULT_POLICY } from "../policy.js";
import { buildPlan } from "./plan-builder.js";
import { parseRequest } from "./request-parser.js";

const plan = (request: string, environment: "dev" | "tst" | "prd" = "dev") =>
  buildPlan({ request, environment, requestId: "req-1", policy: DEFAULT_POLICY });

describe("parseRequest", () => {
  it("reads the seed's example", () => {
    expect(parseRequest("create an S3 bucket for logs in prd with versioning")).toEqual({
      action: "create",
      resources: [{ kind: "s3_bucket", action: "create", purpose: "logs", explicitName: undefined }],
      kinds: ["s3_bucket"],
      purpose: "logs",
      explicitName: undefined,
      features: { versioning: true },
      mentionedEnvironment: "prd",
      riskyWords: [],
    });
  });

  it("actions, purposes, features and names", () => {
    expect(parseRequest("delete the logs bucket in dev")).toMatchObject({
      action: "delete",
      purpose: "logs",
      riskyWords: ["delete"],
    });
    expect(parseRequest("enable versioning on the audit bucket")).toMatchObject({ action: "update", purpose: "audit" });
    expect(parseRequest("add versioning to the audit bucket").action).toBe("update");
    expect(parseRequest("add an SQS queue for billing events").action).toBe("create");
    expect(parseRequest("create a private bucket, not public, for backups").features.public).toBeUndefined();
    expect(parseRequest("create a publicly readable bucket for website assets").features).toEqual({ public: true });
    expect(parseRequest("provision a dynamodb table keyed by user_id").features.hash_key).toBe("user_id");
    expect(parseRequest("create a bucket with 2 weeks retention").features.retention_days).toBe(14);
    expect(parseRequest("create a bucket named trellis-dev-exports").explicitName).toBe("trellis-dev-exports");
    expect(parseRequest("create a queue and a topic for orders").kinds).toEqual(["sqs_queue", "sns_topic"]);
    expect(parseRequest("create a bucket for test data").mentionedEnvironment).toBeUndefined();
    expect(parseRequest("deploy a queue to production").mentionedEnvironment).toBe("prd");
  });
});

describe("buildPlan", () => {
  it("turns the seed's example into requirements, acceptance criteria, a cost estimate and an approval", () => {
    const p = plan("create an S3 bucket for logs in prd with versioning", "prd");
    expect(PlanningOutput.parse(p)).toEqual(p);
    expect(p.resources).toEqual([
      {
        kind: "s3_bucket",
        action: "create",
        label: "logs",
        name: "trellis-prd-logs",
        purpose: "logs",
        features: { versioning: true },
      },
    ]);
    expect(p.requirements.map((r) => `${r.id} [${r.source}] ${r.description}`)).toEqual([
      'REQ-1 [request] Create S3 bucket "trellis-prd-logs" for logs in prd.',
      'REQ-2 [request] Enable versioning on S3 bucket "trellis-prd-logs".',
      'REQ-3 [policy] Encrypt S3 bucket "trellis-prd-logs" at rest.',
      'REQ-4 [policy] Block all public access to S3 bucket "trellis-prd-logs".',
      "REQ-5 [policy] Tag every resource with Environment, Project, Owner, ManagedBy, RequestId.",
      "REQ-6 [policy] Name resources trellis-prd-<purpose>.",
    ]);
    expect(p.acceptance_criteria.map((c) => c.check.type)).toEqual([
      "resource_exists",
      "attributes",
      "encrypted_at_rest",
      "public_access_blocked",
      "tags_present",
    ]);
    expect(p.cost_estimate).toBe("≈ $3.45/month at light usage (S3 bucket $3.45; excludes data transfer)");
    expect(p).toMatchObject({
      impact: "low",
      requires_approval: true,
      approval_reasons: ["changes in prd always need approval"],
    });
  });

  it("approval: prd always; high impact anywhere; low impact outside prd never", () => {
    expect(plan("create an SQS queue for jobs", "tst").requires_approval).toBe(false);
    expect(plan("delete the logs bucket").approval_reasons).toEqual(["high-impact change"]);
    expect(plan("create a public bucket for assets").impact_reasons).toEqual(["makes data public"]);
    expect(plan("create a bucket for logs in prd").impact_reasons).toEqual([
      "the request mentions prd but the pipeline targets dev",
    ]);
    expect(plan("enable versioning on the logs bucket").impact).toBe("medium");
  });

  it("FIFO names, retention limits, explicit names, several resources", () => {
    const fifo = plan("create a fifo sqs queue for orders with 30 day retention");
    expect(fifo.resources[0]).toMatchObject({
      name: "trellis-dev-orders.fifo",
      features: { fifo: true, retention_days: 14 },
    });
    expect(plan("create a bucket named trellis-dev-exports").resources[0]).toMatchObject({
      name: "trellis-dev-exports",
      label: "exports",
    });
    expect(plan("create a queue and a topic for orders").resources.map((r) => r.name)).toEqual([
      "trellis-dev-orders",
      "trellis-dev-orders",
    ]);
  });

  it("a request naming no supported resource plans nothing to implement", () => {
    const p = plan("scale the api to 3 nodes");
    expect(p.resources).toEqual([]);
    expect(p.acceptance_criteria).toEqual([]);
    expect(p.summary).toMatch(/^Could not identify a supported resource/);
    expect(p.cost_estimate).toBe("unknown");
  });
});
