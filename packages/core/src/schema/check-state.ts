import { TrellisError } from "@trellis/checkpoint";
import { InvalidUpdateError, ResumeError } from "../errors.js";
import type { GraphSpec, NodeSpec } from "../graph/spec.js";
import type { Interrupt } from "../runtime/command.js";
import { issuesOf, pathText, type SchemaIssue, type StandardSchemaV1 } from "./standard-schema.js";

/**
 * Checks the keys a caller wrote (`keys`) against their channels' schemas, on the state the write
 * produced (`values`): throws `INVALID_STATE` naming the first key that fails, before anything is
 * written. Keys without a schema cost nothing. @internal
 */
export function checkTypedKeys(
  spec: GraphSpec,
  values: Readonly<Record<string, unknown>>,
  keys: Iterable<string>,
  who: string,
): void {
  if (spec.typedKeys.size === 0) return;
  for (const key of keys) {
    if (!spec.typedKeys.has(key)) continue;
    const schema = spec.schema[key]?.schema as StandardSchemaV1;
    const issues = issuesOf(schema, values[key]);
    if (issues.length === 0) continue;
    const first = issues[0] as SchemaIssue;
    const where = `${key}${pathText(first.path)}`;
    throw new InvalidUpdateError(
      "INVALID_STATE",
      `${who} sets state key "${where}" to ${preview(values[key])}, which its schema refuses: ${first.message}. Send a value that fits the schema (getSchemas() shows it); nothing was written.`,
      { details: { key, path: where, issues: issuesJson(issues) } },
    );
  }
}

/**
 * Checks resume answers (interrupt id → value) against the `resumeSchema` of the node each interrupt
 * paused in: throws `INVALID_RESUME` naming the node and the interrupt, before anything is written. @internal
 */
export function checkResumeAnswers(
  spec: GraphSpec,
  pending: readonly Interrupt[],
  answers: Readonly<Record<string, unknown>>,
): void {
  if (!spec.hasResumeSchemas) return;
  for (const [id, answer] of Object.entries(answers)) {
    const item = pending.find((p) => p.id === id);
    if (!item) continue;
    const schema = nodeAt(spec, item.namespace, item.node)?.options.resumeSchema;
    if (!schema) continue;
    const issues = issuesOf(schema, answer);
    if (issues.length === 0) continue;
    const first = issues[0] as SchemaIssue;
    const at = pathText(first.path);
    throw new ResumeError(
      "INVALID_RESUME",
      `The answer to interrupt ${id} (node "${item.node}")${at ? ` at ${at.replace(/^\./, "")}` : ""} does not fit the node's resumeSchema: ${first.message}. The thread is still paused; resume it with a value that fits.`,
      { details: { interruptId: id, node: item.node, path: at.replace(/^\./, ""), issues: issuesJson(issues) } },
    );
  }
}

/** Checks a run's `configurable` or `context` against the graph's declared schema for it. @internal */
export function checkAgainst(schema: StandardSchemaV1 | undefined, value: unknown, what: string): void {
  if (!schema) return;
  const issues = issuesOf(schema, value ?? {});
  if (issues.length === 0) return;
  const first = issues[0] as SchemaIssue;
  const at = pathText(first.path).replace(/^\./, "");
  throw new TrellisError(
    "INVALID_CONFIG",
    `The run's ${what}${at ? ` key "${at}"` : ""} does not fit the graph's ${what} schema: ${first.message}.`,
    { details: { [what]: at, issues: issuesJson(issues) } },
  );
}

/** The node an interrupt paused in, inside the subgraphs its namespace names. */
function nodeAt(spec: GraphSpec, namespace: string, node: string): NodeSpec | undefined {
  let at: GraphSpec | undefined = spec;
  for (const segment of namespace ? namespace.split("|") : []) {
    at = at?.nodes.get(segment.split(":")[0] as string)?.subgraph?.spec;
  }
  return at?.nodes.get(node);
}

function issuesJson(issues: readonly SchemaIssue[]): Array<{ message: string; path: string }> {
  return issues.map((i) => ({ message: i.message, path: pathText(i.path).replace(/^\./, "") }));
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
