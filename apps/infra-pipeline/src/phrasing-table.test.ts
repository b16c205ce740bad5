/**
 * Issue 35: a phrasing table — English infrastructure requests written the way engineers write them in
 * chat (verbs in many forms, several resources in one sentence, settings taken away, full names,
 * environments in the text, things the pipeline does not manage, questions), each sent through the
 * Agent Server API (dry run) with what the right outcome is: the intent, and for a change the resources
 * planned (kind, action, name, the features that matter) in the right environment — or no plan and an
 * answer. The share that comes out right is printed and held to a floor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResourceSpec } from "./contracts.js";
import type { PipelineState } from "./state.js";
import { type ApiServer, requestInput, startApiServer } from "./test-support/api-server.js";

/** What a right outcome holds. */
interface Expected {
  intent?: PipelineState["intent"];
  environment?: string;
  /** The resources planned, in order: [kind, action, name, features that must match]. */
  resources?: Array<[ResourceSpec["kind"], ResourceSpec["action"], string, Partial<ResourceSpec["features"]>?]>;
  /** No plan; the answer matches. */
  answer?: RegExp;
}

const TABLE: Array<[string, Expected]> = [
  ["spin up a bucket to hold nightly exports", { resources: [["s3_bucket", "create", "trellis-dev-nightly-exports"]] }],
  ["we need an SQS queue for payment events", { resources: [["sqs_queue", "create", "trellis-dev-payment-events"]] }],
  [
    "can you set up a DynamoDB table for user sessions keyed by session_id?",
    {
      resources: [["dynamodb_table", "create", "trellis-dev-user-sessions", { hash_key: "session_id" }]],
    },
  ],
  ["provision an SNS topic for deploy alerts", { resources: [["sns_topic", "create", "trellis-dev-deploy-alerts"]] }],
  [
    "make two buckets, for invoices and for receipts",
    {
      resources: [
        ["s3_bucket", "create", "trellis-dev-invoices"],
        ["s3_bucket", "create", "trellis-dev-receipts"],
      ],
    },
  ],
  [
    "create buckets for raw, staged and curated data",
    {
      resources: [
        ["s3_bucket", "create", "trellis-dev-raw"],
        ["s3_bucket", "create", "trellis-dev-staged"],
        ["s3_bucket", "create", "trellis-dev-curated"],
      ],
    },
  ],
  [
    "add a queue for emails and a topic for notifications",
    {
      resources: [
        ["sqs_queue", "create", "trellis-dev-emails"],
        ["sns_topic", "create", "trellis-dev-notifications"],
      ],
    },
  ],
  [
    "I'd like a FIFO queue for ledger entries",
    {
      resources: [["sqs_queue", "create", "trellis-dev-ledger-entries.fifo", { fifo: true }]],
    },
  ],
  [
    "stand up a versioned bucket for terraform plans",
    {
      resources: [["s3_bucket", "create", "trellis-dev-terraform-plans", { versioning: true }]],
    },
  ],
  [
    "turn off versioning on the trellis-dev-archive bucket",
    {
      resources: [["s3_bucket", "update", "trellis-dev-archive", { versioning: false }]],
    },
  ],
  [
    "please strip public access from trellis-dev-website bucket",
    {
      resources: [["s3_bucket", "update", "trellis-dev-website", { public: false }]],
    },
  ],
  [
    "suspend versioning for bucket trellis-dev-tmp",
    {
      resources: [["s3_bucket", "update", "trellis-dev-tmp", { versioning: false }]],
    },
  ],
  [
    "make the trellis-dev-reports bucket private",
    {
      resources: [["s3_bucket", "update", "trellis-dev-reports", { public: false }]],
    },
  ],
  [
    "enable versioning on the backups bucket",
    {
      resources: [["s3_bucket", "update", "trellis-dev-backups", { versioning: true }]],
    },
  ],
  [
    "switch on versioning for s3://trellis-dev-media",
    {
      resources: [["s3_bucket", "update", "trellis-dev-media", { versioning: true }]],
    },
  ],
  ["tear down the trellis-dev-scratch bucket", { resources: [["s3_bucket", "delete", "trellis-dev-scratch"]] }],
  ["get rid of the old orders queue", { resources: [["sqs_queue", "delete", "trellis-dev-orders"]] }],
  ["decommission the sessions table", { resources: [["dynamodb_table", "delete", "trellis-dev-sessions"]] }],
  ["we're removing the alerts topic, please delete it", { resources: [["sns_topic", "delete", "trellis-dev-alerts"]] }],
  ["delete the bucket named trellis-dev-old-logs", { resources: [["s3_bucket", "delete", "trellis-dev-old-logs"]] }],
  [
    "create a queue for refunds in production",
    {
      environment: "prd",
      resources: [["sqs_queue", "create", "trellis-prd-refunds"]],
    },
  ],
  [
    "set up a bucket for audit logs in staging",
    {
      environment: "tst",
      resources: [["s3_bucket", "create", "trellis-tst-audit-logs"]],
    },
  ],
  [
    "create a bucket for logs and delete the trellis-dev-legacy queue",
    {
      resources: [
        ["s3_bucket", "create", "trellis-dev-logs"],
        ["sqs_queue", "delete", "trellis-dev-legacy"],
      ],
    },
  ],
  [
    "create a bucket for thumbnails with 30 days retention",
    {
      resources: [["s3_bucket", "create", "trellis-dev-thumbnails", { retention_days: 30 }]],
    },
  ],
  [
    "create an encrypted topic for billing using a KMS key",
    {
      resources: [["sns_topic", "create", "trellis-dev-billing", { kms: true }]],
    },
  ],
  ["scale the EKS cluster to 5 nodes", { answer: /^I can't do that here: Kubernetes \(EKS\)/ }],
  ["spin up three EC2 instances for the build farm", { answer: /^I can't do that here: EC2 instances/ }],
  ["create a postgres database for analytics", { answer: /^I can't do that here: RDS databases/ }],
  ["how many buckets did we deploy?", { intent: "query" }],
  ["which queues exist in dev", { intent: "query" }],
  ["thanks, that's all", { intent: "conversation" }],
  ["hello there", { intent: "conversation" }],
];

let api: ApiServer;
beforeAll(async () => {
  api = await startApiServer({ INFRA_AGENT_EXECUTOR: "none" });
});
afterAll(async () => {
  await api.close();
});

describe("phrasing table: English infrastructure requests as people write them", () => {
  it(`${TABLE.length} requests: the share that comes out right is reported and at least 0.9`, async () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(30);
    const misses: string[] = [];
    for (const [request, expected] of TABLE) {
      const thread = await api.thread();
      const res = await thread.wait({ input: requestInput(request, { environment: "dev", dry_run: true }) });
      const wrong = mismatch(res.json as unknown as PipelineState, expected);
      if (wrong) misses.push(`${request} → ${wrong}`);
    }
    const share = (TABLE.length - misses.length) / TABLE.length;
    console.log(
      `infra-pipeline phrasing table: ${TABLE.length - misses.length}/${TABLE.length} right (${share.toFixed(2)})`,
    );
    for (const miss of misses) console.log(`  miss: ${miss}`);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });
});

function mismatch(state: PipelineState, e: Expected): string | undefined {
  if (e.intent && state.intent !== e.intent) return `intent ${state.intent}`;
  if (e.answer) {
    if (state.planning_output) return `planned ${state.planning_output.summary}`;
    const text = String(state.messages.at(-1)?.content ?? "");
    return e.answer.test(text) ? undefined : `answered ${JSON.stringify(text.slice(0, 100))}`;
  }
  if (!e.resources) return undefined;
  const plan = state.planning_output;
  if (!plan) return `no plan: ${JSON.stringify(String(state.messages.at(-1)?.content ?? "").slice(0, 100))}`;
  if (e.environment && plan.environment !== e.environment) return `environment ${plan.environment}`;
  const got = plan.resources.map((r) => [r.kind, r.action, r.name].join(" "));
  const want = e.resources.map(([kind, action, name]) => [kind, action, name].join(" "));
  if (JSON.stringify(got) !== JSON.stringify(want)) return `resources ${JSON.stringify(got)}`;
  for (const [i, [, , , features]] of e.resources.entries()) {
    for (const [key, value] of Object.entries(features ?? {})) {
      const actual = (plan.resources[i]?.features as Record<string, unknown> | undefined)?.[key];
      if (actual !== value) return `${plan.resources[i]?.name} ${key} = ${JSON.stringify(actual)}`;
    }
  }
  return undefined;
}
