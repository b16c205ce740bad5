/**
 * Evaluates acceptance criteria against a parsed Terraform module, with the evidence for each verdict.
 */
import type { AcceptanceCriterion, ChangeAction, CriterionCheck, PlanningOutput } from "../contracts.js";
import { TAGGABLE_TYPES } from "../policy.js";
import { describe, effectiveTags, encryptionOf, physicalNameOf, publicAccessOf } from "../terraform/aws-facts.js";
import { resourcesFor, type TfModule, Unknown, valuesAt } from "../terraform/terraform-module.js";

/**
 * A criterion's verdict.
 *
 * @example
 * const r: CriterionResult = { id: "AC-1", description: "…", passed: true, evidence: "aws_s3_bucket.logs (main.tf:1)" };
 */
export interface CriterionResult {
  id: string;
  description: string;
  passed: boolean;
  evidence: string;
}

/**
 * Checks one criterion.
 *
 * @example
 * evaluateCriterion(mod, { id: "AC-1", description: "bucket exists",
 *   check: { type: "resource_exists", resource_type: "aws_s3_bucket", name: "trellis-dev-logs" } }).passed;
 */
export function evaluateCriterion(mod: TfModule, criterion: AcceptanceCriterion): CriterionResult {
  const { passed, evidence } = check(mod, criterion.check);
  return { id: criterion.id, description: criterion.description, passed, evidence };
}

function check(mod: TfModule, c: CriterionCheck): { passed: boolean; evidence: string } {
  switch (c.type) {
    case "resource_exists": {
      const candidates = mod.resources.filter((r) => r.type === c.resource_type);
      const match = candidates.find((r) => c.name === undefined || physicalNameOf(mod, r)?.value === c.name);
      if (match) return { passed: true, evidence: `${match.address} (${match.file}:${match.block.line})` };
      const names = candidates.map((r) => `${r.address} = ${describe(physicalNameOf(mod, r)?.value)}`);
      return {
        passed: false,
        evidence: `no ${c.resource_type}${c.name ? ` named "${c.name}"` : ""}${names.length ? `; found ${names.join(", ")}` : ""}`,
      };
    }
    case "attributes": {
      const candidates = resourcesFor(mod, c.resource_type, c.subject);
      if (candidates.length === 0) {
        return { passed: false, evidence: `no ${c.resource_type}${c.subject ? ` for ${c.subject}` : ""}` };
      }
      const misses: string[] = [];
      for (const r of candidates) {
        const wrong = Object.entries(c.expect).filter(([path, want]) => !matches(valuesAt(mod, r.block, path), want));
        if (wrong.length === 0) {
          const shown = Object.entries(c.expect).map(([p, v]) => `${p} = ${v === "*" ? "(set)" : JSON.stringify(v)}`);
          return {
            passed: true,
            evidence: `${r.address} (${r.file}:${r.block.line})${shown.length ? `: ${shown.join(", ")}` : ""}`,
          };
        }
        misses.push(
          `${r.address}: ${wrong.map(([p, v]) => `${p} is ${describe(valuesAt(mod, r.block, p)[0]?.value)}, want ${JSON.stringify(v)}`).join("; ")}`,
        );
      }
      return { passed: false, evidence: misses.join(" | ") };
    }
    case "tags_present": {
      const taggable = mod.resources.filter((r) => TAGGABLE_TYPES.has(r.type));
      const lacking = taggable
        .map((r) => ({ r, missing: c.keys.filter((k) => !(k in effectiveTags(mod, r).tags)) }))
        .filter((x) => x.missing.length > 0);
      if (lacking.length === 0)
        return { passed: true, evidence: `${taggable.length} taggable resource(s) carry ${c.keys.join(", ")}` };
      return { passed: false, evidence: lacking.map((x) => `${x.r.address} lacks ${x.missing.join(", ")}`).join("; ") };
    }
    case "resource_removed": {
      const removed = mod.removed.find((r) => r.from === c.address && r.destroy);
      if (removed)
        return { passed: true, evidence: `removed block (${removed.file}:${removed.line}) destroys ${c.address}` };
      const still = mod.resources.some((r) => r.address === c.address);
      return {
        passed: false,
        evidence: still ? `${c.address} is still declared` : `no removed block for ${c.address}`,
      };
    }
    case "encrypted_at_rest": {
      const subject = mod.resources.find((r) => r.address === c.subject);
      if (!subject) return { passed: false, evidence: `${c.subject} is not declared` };
      const enc = encryptionOf(mod, subject);
      if (!enc) return { passed: false, evidence: `cannot tell how ${subject.type} is encrypted` };
      return { passed: enc.encrypted, evidence: enc.evidence };
    }
    case "public_access_blocked": {
      const subject = mod.resources.find((r) => r.address === c.subject);
      if (!subject) return { passed: false, evidence: `${c.subject} is not declared` };
      const fact = publicAccessOf(mod, subject);
      if (!fact.block) return { passed: false, evidence: "no public access block" };
      const problems = [
        ...(fact.block.disabled.length ? [`${fact.block.disabled.join(", ")} not true`] : []),
        ...(fact.publicAcl ? [`ACL ${fact.publicAcl.value}`] : []),
        ...(fact.publicPolicy ? [`public policy ${fact.publicPolicy.address}`] : []),
      ];
      return problems.length
        ? { passed: false, evidence: problems.join("; ") }
        : { passed: true, evidence: `${fact.block.address} blocks all public access` };
    }
  }
}

function matches(found: Array<{ value: unknown }>, want: string | number | boolean): boolean {
  if (want === "*") return found.some((f) => f.value !== undefined && f.value !== null);
  return found.some((f) => !(f.value instanceof Unknown) && f.value === want);
}

/**
 * The changes applying the files would make, as a dry-run plan: every declared resource is created or
 * updated (as the plan says for its resource), every `removed` block deletes.
 *
 * @example
 * plannedChanges(mod, plan); // [{ address: "aws_s3_bucket.logs", action: "create" }, …]
 */
export function plannedChanges(
  mod: TfModule,
  plan: PlanningOutput | null,
): Array<{ address: string; action: ChangeAction }> {
  const updated = new Set((plan?.resources ?? []).filter((r) => r.action === "update").map((r) => r.label));
  return [
    ...mod.resources.map((r) => ({
      address: r.address,
      action: (updated.has(r.label) ? "update" : "create") as ChangeAction,
    })),
    ...mod.removed.map((r) => ({ address: r.from, action: "delete" as ChangeAction })),
  ];
}
