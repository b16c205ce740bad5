/**
 * The local deployment target (`INFRA_AGENT_TF_TARGET=local`): the reviewed module's resources rendered
 * as Terraform's built-in `terraform_data` resources — same types, labels and attributes — and applied
 * by the real `terraform`/`tofu` binary in a temporary directory, on the environment's shared state
 * (`state-backend.ts`: a local file, or Terraform's `pg` backend). The built-in provider
 * (`terraform.io/builtin/terraform`) needs no registry, so `init`, `plan` and `apply` run offline. The acceptance criteria are then checked against what was applied (`show -json`), not
 * against the files.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AcceptanceCriterion } from "../contracts.js";
import type { HclBlock, HclValue } from "../terraform/hcl-parser.js";
import { attr, block, expr, type HclNode, type HclWritable, renderHcl } from "../terraform/hcl-writer.js";
import { evaluate, loadModule, type TfModule, Unknown } from "../terraform/terraform-module.js";
import { type CriterionResult, evaluateCriterion } from "./criteria.js";
import { type DeployExecutor, deployCommands, type ExecutorStep, runCommand } from "./executor.js";

/** A block's body as rendered: its attributes, and its nested blocks by type. */
interface RenderedBody {
  attributes: Record<string, unknown>;
  blocks: Record<string, RenderedBody[]>;
}

/** What a rendered resource carries in `input` (and Terraform echoes in `output`). */
interface RenderedResource extends RenderedBody {
  type: string;
  label: string;
}

/**
 * The `terraform_data` name of a resource: `<type>__<label>` (a bucket and its versioning often share a
 * label).
 *
 * @example
 * localName("aws_s3_bucket", "logs"); // "aws_s3_bucket__logs"
 */
export function localName(type: string, label: string): string {
  return `${type}__${label}`;
}

/** A value as Terraform's JSON syntax must carry it: literal `${`/`%{` escaped, unknowns as `${expr}` text. */
function literal(value: unknown): unknown {
  if (value instanceof Unknown) return `$\${${value.text}}`;
  // a replacer function: in a replacement string "$$" is one "$", which left "${" unescaped
  if (typeof value === "string") return value.replace(/\$\{/g, () => "$${").replace(/%\{/g, () => "%%{");
  if (Array.isArray(value)) return value.map(literal);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literal(v)]));
  }
  return value;
}

/** HCL source text of an expression, for a lifecycle condition. */
function hclText(value: HclValue): string {
  switch (value.kind) {
    case "string":
      return JSON.stringify(value.value);
    case "number":
    case "bool":
      return String(value.value);
    case "null":
      return "null";
    case "list":
      return `[${value.items.map(hclText).join(", ")}]`;
    case "object":
      return `{ ${Object.entries(value.entries)
        .map(([k, v]) => `${JSON.stringify(k)} = ${hclText(v)}`)
        .join(", ")} }`;
    case "ref":
      return value.path;
    case "call":
      return `${value.name}(${value.args.map(hclText).join(", ")})`;
    case "raw":
      return value.text;
  }
}

function bodyOf(mod: TfModule, b: HclBlock): RenderedBody {
  const attributes = Object.fromEntries(Object.entries(b.attributes).map(([k, a]) => [k, evaluate(mod, a.value)]));
  const blocks: Record<string, RenderedBody[]> = {};
  for (const nested of b.blocks) {
    if (nested.type === "lifecycle") continue; // Terraform meta-arguments, not the resource's attributes
    const list = blocks[nested.type] ?? [];
    list.push(bodyOf(mod, nested));
    blocks[nested.type] = list;
  }
  return { attributes, blocks };
}

/** A resource's lifecycle pre/postconditions, with `self.<attribute>` pointing into the rendered output. */
function conditionsOf(b: HclBlock): Record<string, Array<{ condition: string; error_message: string }>> {
  const out: Record<string, Array<{ condition: string; error_message: string }>> = {};
  for (const lifecycle of b.blocks.filter((x) => x.type === "lifecycle")) {
    for (const c of lifecycle.blocks.filter((x) => x.type === "precondition" || x.type === "postcondition")) {
      const condition = c.attributes.condition?.value;
      if (!condition) continue;
      const text = hclText(condition).replace(/\bself\.(?=[A-Za-z_])/g, "self.output.attributes.");
      const message = c.attributes.error_message?.value;
      const list = out[c.type] ?? [];
      list.push({
        condition: `\${${text}}`,
        error_message: message?.kind === "string" ? message.value : "condition failed",
      });
      out[c.type] = list;
    }
  }
  return out;
}

/**
 * Renders a module as a `main.tf.json` of `terraform_data` resources: each resource's evaluated
 * attributes and nested blocks in `input` (a reference to another resource stays as its expression
 * text), its lifecycle pre/postconditions kept with `self.x` read from the applied output. With
 * `deployed` (what the environment's state holds), the resources this module neither replaces nor
 * removes (`removed` blocks) are kept as they are, so applying it changes only what the request asks.
 * Nothing left renders `{}`.
 *
 * @example
 * renderLocalTarget(loadModule(files)).resource.terraform_data.aws_s3_bucket__logs.input.attributes.bucket; // "trellis-dev-logs"
 */
export function renderLocalTarget(
  mod: TfModule,
  deployed: readonly RenderedResource[] = [],
): {
  resource?: { terraform_data: Record<string, { input: unknown; lifecycle?: unknown[] }> };
} {
  const resources: Record<string, { input: unknown; lifecycle?: unknown[] }> = {};
  // what the environment already holds and this module neither replaces nor removes stays as it is
  for (const r of keptResources(mod, deployed)) resources[localName(r.type, r.label)] = { input: literal(r) };
  for (const r of mod.resources) {
    const { attributes, blocks } = bodyOf(mod, r.block);
    const input: RenderedResource = { type: r.type, label: r.label, attributes, blocks };
    const conditions = conditionsOf(r.block);
    resources[localName(r.type, r.label)] = {
      input: literal(input),
      ...(Object.keys(conditions).length > 0 ? { lifecycle: [conditions] } : {}),
    };
  }
  // an empty configuration is `{}`: `"terraform_data": {}` is not valid Terraform ("Missing block label")
  return Object.keys(resources).length > 0 ? { resource: { terraform_data: resources } } : {};
}

/** The primary resource types a plan names; sub-resources (`aws_s3_bucket_versioning`) belong to them. */
const PRIMARY_TYPES = ["aws_s3_bucket", "aws_sqs_queue", "aws_sns_topic", "aws_dynamodb_table"] as const;

/** The primary type a resource type belongs to (`aws_s3_bucket_versioning` → `aws_s3_bucket`). */
function familyOf(type: string): string {
  return PRIMARY_TYPES.find((p) => type === p || type.startsWith(`${p}_`)) ?? type;
}

/**
 * The deployed resources a module leaves alone: not removed by its `removed` blocks and not replaced by
 * its resources (a resource and its sub-resources go together, by primary type and label; a KMS key goes
 * with the label when nothing else of that label stays).
 */
function keptResources(mod: TfModule, deployed: readonly RenderedResource[]): RenderedResource[] {
  const touched = new Set<string>();
  for (const r of mod.resources) touched.add(`${familyOf(r.type)}.${r.label}`);
  for (const removed of mod.removed) {
    const [type = "", label = ""] = removed.from.split(".");
    touched.add(`${familyOf(type)}.${label}`);
  }
  const kept = deployed.filter((r) => !touched.has(`${familyOf(r.type)}.${r.label}`));
  const stillUsed = new Set(kept.filter((r) => r.type !== "aws_kms_key").map((r) => r.label));
  for (const r of mod.resources) stillUsed.add(r.label);
  return kept.filter((r) => r.type !== "aws_kms_key" || stillUsed.has(r.label));
}

/** The resources an environment's state holds, as they were rendered (`terraform show -json`). */
function deployedResources(show: unknown): RenderedResource[] {
  const resources =
    (show as { values?: { root_module?: { resources?: Array<{ type?: string; values?: { output?: unknown } }> } } })
      ?.values?.root_module?.resources ?? [];
  return resources.flatMap((r) => {
    const out = r.values?.output as Partial<RenderedResource> | undefined;
    if (r.type !== "terraform_data" || !out?.type || !out.label) return [];
    return [{ type: out.type, label: out.label, attributes: out.attributes ?? {}, blocks: out.blocks ?? {} }];
  });
}

/** A value read back from the applied state, as HCL: `${expr}` strings are expressions again. */
function writable(value: unknown): HclWritable {
  if (typeof value === "string") {
    const m = /^\$\{([\s\S]+)\}$/.exec(value);
    return m ? expr(m[1] as string) : value;
  }
  if (typeof value === "number" || typeof value === "boolean" || value === null) return value;
  if (Array.isArray(value)) return value.map(writable);
  if (typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, writable(v)]));
  }
  return null;
}

function bodyNodes(body: Partial<RenderedBody>): HclNode[] {
  return [
    ...Object.entries(body.attributes ?? {}).map(([k, v]) => attr(k, writable(v))),
    ...Object.entries(body.blocks ?? {}).flatMap(([type, items]) =>
      (Array.isArray(items) ? items : []).map((item) => block(type, [], bodyNodes(item))),
    ),
  ];
}

/**
 * The module that was applied, rebuilt from `terraform show -json`: one `resource "<type>" "<label>"`
 * per `terraform_data` in the state, with the attributes and blocks Terraform recorded.
 *
 * @example
 * const applied = appliedModule(JSON.parse(showJson));
 * applied.resources.map((r) => r.address); // ["aws_s3_bucket.logs", …]
 */
export function appliedModule(show: unknown): TfModule {
  const nodes: HclNode[] = deployedResources(show).map((r) => block("resource", [r.type, r.label], bodyNodes(r)));
  return loadModule([{ path: "applied-state", content: renderHcl(nodes) }]);
}

/**
 * Checks the acceptance criteria against the applied module. A removal is met when the address is not
 * in the applied state.
 *
 * @example
 * checkApplied(appliedModule(show), plan.acceptance_criteria).every((c) => c.passed);
 */
export function checkApplied(applied: TfModule, criteria: readonly AcceptanceCriterion[]): CriterionResult[] {
  return criteria.map((c) => {
    if (c.check.type === "resource_removed") {
      const address = c.check.address;
      const still = applied.resources.some((r) => r.address === address);
      return {
        id: c.id,
        description: c.description,
        passed: !still,
        evidence: still ? `${address} is in the applied state` : `${address} is not in the applied state`,
      };
    }
    const result = evaluateCriterion(applied, c);
    return { ...result, evidence: `applied state: ${result.evidence}` };
  });
}

/**
 * What a local apply did: the commands with exit codes and output, whether apply succeeded, and the
 * criteria checked against the applied state (empty when nothing was applied).
 */
export interface LocalApply {
  applied: boolean;
  steps: ExecutorStep[];
  criteria: CriterionResult[];
  /** Resources in the applied state, by their original address. */
  resources: string[];
}

/**
 * Options of {@link applyLocal}.
 *
 * @example
 * const options: LocalApplyOptions = { backend: backendBlock({ kind: "local" }, "dev", "/data/tfstate") };
 */
export interface LocalApplyOptions {
  /** The `terraform { backend … }` block of the environment's shared state (`state-backend.ts`). */
  backend?: unknown;
  signal?: AbortSignal | undefined;
}

/**
 * Applies a module to the local target on the environment's shared state: `init` against the backend,
 * reads what is deployed (`show -json`), renders what is deployed plus this module's changes (its
 * resources replace theirs, its `removed` blocks drop theirs), then `plan -out`, `apply` of that plan
 * and `show -json`; checks the criteria against the state. The working directory is temporary; the
 * state lives in the backend (without one, in the temporary directory: nothing is kept).
 *
 * @example
 * const result = await applyLocal(executor, loadModule(files), plan.acceptance_criteria, { backend });
 * result.applied; // true when apply exited 0
 */
export async function applyLocal(
  executor: DeployExecutor,
  mod: TfModule,
  criteria: readonly AcceptanceCriterion[],
  options: LocalApplyOptions = {},
): Promise<LocalApply> {
  const { signal } = options;
  const dir = mkdtempSync(join(tmpdir(), "infra-local-target-"));
  try {
    if (options.backend) writeFileSync(join(dir, "backend.tf.json"), `${JSON.stringify(options.backend, null, 2)}\n`);
    const steps: ExecutorStep[] = [];
    const [init, ...rest] = deployCommands(executor);
    const first = await runCommand(executor.bin, init ?? [], dir, signal);
    steps.push(first);
    if (first.exit_code !== 0) return { applied: false, steps, criteria: [], resources: [] };
    const before = options.backend
      ? await runCommand(executor.bin, ["show", "-json", "-no-color"], dir, signal, { fullOutput: true })
      : undefined;
    const deployed = before?.exit_code === 0 ? deployedResources(parseJson(before.output)) : [];
    writeFileSync(join(dir, "main.tf.json"), `${JSON.stringify(renderLocalTarget(mod, deployed), null, 2)}\n`);
    for (const args of rest) {
      const step = await runCommand(executor.bin, args, dir, signal);
      steps.push(step);
      if (step.exit_code !== 0) return { applied: false, steps, criteria: [], resources: [] };
    }
    if (executor.apply === false) return { applied: false, steps, criteria: [], resources: [] };
    const show = await runCommand(executor.bin, ["show", "-json", "-no-color"], dir, signal, { fullOutput: true });
    const state = parseJson(show.output);
    steps.push({ ...show, output: show.output.slice(-4000) });
    if (show.exit_code !== 0 || state === undefined) return { applied: true, steps, criteria: [], resources: [] };
    const applied = appliedModule(state);
    return {
      applied: true,
      steps,
      criteria: checkApplied(applied, criteria),
      resources: applied.resources.map((r) => r.address),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
