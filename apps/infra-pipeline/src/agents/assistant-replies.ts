/**
 * The orchestrator's direct answers (the seed's `handle_query` and `handle_conversation`). Queries are
 * answered from the artifact records of past requests — offline by filtering them, with a model by
 * giving it the same inventory. Conversation goes to the model, offline a small rule-based one.
 */
import { type ChatModel, RuleChatModel } from "@trellis/models";
import type { ArtifactStore } from "../artifacts.js";
import { DeploymentOutput, type Environment, PlanningOutput, type ResourceKind, ReviewOutput } from "../contracts.js";

const HELP =
  'I plan, write, review and validate infrastructure changes. Describe a change — for example "create an S3 bucket ' +
  'for logs in prd with versioning" — and I will plan it, write Terraform, review it against the policy and ' +
  'validate it in a dry run, asking for your approval where needed. Ask "list the buckets in prd" or "status of ' +
  '<request id>" about past requests.';

/**
 * The offline conversation model: greetings, thanks, and help.
 *
 * @example
 * const reply = await offlineConversationModel().invoke(["hello"]);
 */
export function offlineConversationModel(): ChatModel {
  return new RuleChatModel({
    model: "infra-conversation",
    rules: [
      { name: "greeting", when: /\b(hi|hello|hey|good (morning|afternoon|evening))\b/i, reply: `Hello! ${HELP}` },
      { name: "thanks", when: /\b(thanks|thank you|cheers)\b/i, reply: "You're welcome. Anything else to change?" },
      { name: "bye", when: /\b(bye|goodbye|see you)\b/i, reply: "Goodbye!" },
    ],
    fallback: HELP,
  });
}

/**
 * One past request, as the query handler sees it.
 *
 * @example
 * const entry: InventoryEntry = { request_id: "req-1", environment: "prd", summary: "…", status: "deployed (dry run)", resources: [] };
 */
export interface InventoryEntry {
  request_id: string;
  environment: Environment;
  summary: string;
  status: string;
  resources: Array<{ kind: ResourceKind; name: string; action: string }>;
}

/**
 * Reads every request's records into an inventory.
 *
 * @example
 * (await readInventory(store)).filter((e) => e.environment === "prd");
 */
export async function readInventory(store: ArtifactStore): Promise<InventoryEntry[]> {
  const out: InventoryEntry[] = [];
  for (const id of await store.listRequests()) {
    const plan = PlanningOutput.safeParse(await store.readRecord(id, "plan"));
    if (!plan.success) continue;
    const review = ReviewOutput.safeParse(await store.readRecord(id, "review"));
    const deployment = DeploymentOutput.safeParse(await store.readRecord(id, "deployment"));
    const status = deployment.success
      ? deployment.data.status === "applied"
        ? `deployed (${deployment.data.mode})`
        : deployment.data.status === "refused"
          ? "not deployed (refused: no executor)"
          : deployment.data.status === "planned"
            ? "planned only, not applied"
            : "deployment failed"
      : review.success
        ? `review ${review.data.status}`
        : "planned";
    out.push({
      request_id: id,
      environment: plan.data.environment,
      summary: plan.data.summary,
      status,
      resources: plan.data.resources.map((r) => ({ kind: r.kind, name: r.name, action: r.action })),
    });
  }
  return out;
}

const KIND_WORDS: Array<[ResourceKind, RegExp, string]> = [
  ["s3_bucket", /\b(s3|buckets?)\b/i, "S3 bucket"],
  ["sqs_queue", /\b(sqs|queues?)\b/i, "SQS queue"],
  ["dynamodb_table", /\b(dynamo(db)?|tables?)\b/i, "DynamoDB table"],
  ["sns_topic", /\b(sns|topics?)\b/i, "SNS topic"],
];

/**
 * Answers a status or information request.
 *
 * @example
 * await handleQuery("list the buckets in prd", "prd", { store }); // "1 S3 bucket in prd: …"
 */
export async function handleQuery(
  userInput: string,
  environment: Environment,
  options: { store: ArtifactStore; model?: ChatModel | undefined; signal?: AbortSignal },
): Promise<string> {
  const inventory = await readInventory(options.store);
  if (options.model) {
    const reply = await options.model.invoke(
      [
        {
          role: "system",
          content: `You answer questions about the infrastructure an agent pipeline has planned and validated (environment ${environment}). Answer only from this inventory of requests (JSON):\n${JSON.stringify(inventory)}`,
        },
        { role: "user", content: userInput },
      ],
      options.signal ? { signal: options.signal } : {},
    );
    return reply.content;
  }
  return answerFromInventory(userInput, environment, inventory);
}

/**
 * The offline query answer: filters the inventory by request id, resource kind and environment.
 *
 * @example
 * answerFromInventory("how many queues in dev", "dev", inventory);
 */
export function answerFromInventory(userInput: string, environment: Environment, inventory: InventoryEntry[]): string {
  const text = userInput.toLowerCase();
  const byId = inventory.find((e) => text.includes(e.request_id.toLowerCase()));
  if (byId) {
    const lines = byId.resources.map((r) => `  - ${r.action} ${r.kind.replace("_", " ")} ${r.name}`);
    return `${byId.request_id} (${byId.environment}): ${byId.status}.\n${byId.summary}${lines.length ? `\n${lines.join("\n")}` : ""}`;
  }
  const kinds = KIND_WORDS.filter(([, re]) => re.test(text));
  const envMatch = /\b(dev|tst|prd|prod|production|test|staging)\b/.exec(text)?.[1];
  const env: Environment | "all" =
    envMatch === undefined
      ? /\b(all|every)\b/.test(text)
        ? "all"
        : environment
      : envMatch.startsWith("prod")
        ? "prd"
        : envMatch === "dev"
          ? "dev"
          : envMatch === "prd"
            ? "prd"
            : "tst";
  if (kinds.length === 0 && /\b(you|help|can i|do you)\b/.test(text)) return HELP;
  const scoped = inventory.filter((e) => env === "all" || e.environment === env);
  const where = env === "all" ? "any environment" : env;
  if (kinds.length === 0) {
    if (scoped.length === 0) return `No requests recorded in ${where} yet. ${HELP}`;
    return `${scoped.length} request(s) in ${where}:\n${scoped.map((e) => `  - ${e.request_id}: ${e.summary} [${e.status}]`).join("\n")}`;
  }
  const live = new Map<string, { kind: string; env: Environment; request: string; status: string }>();
  for (const e of scoped) {
    for (const r of e.resources) {
      if (!kinds.some(([k]) => k === r.kind)) continue;
      if (r.action === "delete") live.delete(r.name);
      else live.set(r.name, { kind: r.kind, env: e.environment, request: e.request_id, status: e.status });
    }
  }
  const label = (n: number) => kinds.map(([, , l]) => (n === 1 ? l : `${l}s`)).join(" or ");
  if (live.size === 0) return `No ${label(0)} recorded in ${where}.`;
  const rows = [...live].map(([name, r]) => `  - ${name} (${r.env}) — ${r.request}, ${r.status}`);
  return `${live.size} ${label(live.size)} in ${where}:\n${rows.join("\n")}`;
}

/**
 * Replies to conversation.
 *
 * @example
 * await handleConversation("hello", { model: offlineConversationModel() });
 */
export async function handleConversation(
  userInput: string,
  options: { model: ChatModel; signal?: AbortSignal },
): Promise<string> {
  const reply = await options.model.invoke(
    [
      { role: "system", content: `You are the infra-agent assistant. ${HELP}` },
      { role: "user", content: userInput },
    ],
    options.signal ? { signal: options.signal } : {},
  );
  return reply.content;
}
