import { type CheckpointMetadata, type CheckpointSaver, TrellisError } from "@trellis/checkpoint";
import { START } from "../constants.js";
import type { GraphSpec } from "../graph/spec.js";
import { checkTypedKeys } from "../schema/check-state.js";
import { applyWrites } from "./apply.js";
import { CheckpointWriter } from "./checkpoint-writer.js";
import type { NormalizedConfig } from "./config.js";
import { acquireLease, executionLeaseOwner } from "./lease-keeper.js";
import { route } from "./route.js";
import { advance, freshState, stateFromTuple } from "./thread-state.js";
import { validateUpdate } from "./validate-update.js";

/**
 * Writes `values` to a thread as if `asNode` had returned them: through the reducers, then routing from
 * that node, so the next run continues from there. Stores a new checkpoint with source "update". @internal
 */
export async function updateThreadState(
  spec: GraphSpec,
  saver: CheckpointSaver,
  config: NormalizedConfig & { threadId: string },
  values: unknown,
  asNode: string | undefined,
): Promise<{ threadId: string; checkpointId: string }> {
  const lease = await acquireLease(saver, config.threadId, spec.clock, {
    owner: executionLeaseOwner(config),
    ttlMs: spec.leaseTtlMs,
  });
  try {
    const tuple = await saver.get({
      threadId: config.threadId,
      ...(config.checkpointId !== undefined ? { checkpointId: config.checkpointId } : {}),
    });
    if (!tuple && config.checkpointId !== undefined) {
      throw new TrellisError(
        "CHECKPOINT_NOT_FOUND",
        `Thread "${config.threadId}" has no checkpoint ${config.checkpointId}.`,
        {
          details: { threadId: config.threadId, checkpointId: config.checkpointId },
        },
      );
    }
    const state = tuple
      ? stateFromTuple(spec.schema, tuple)
      : freshState(spec.schema, { threadId: config.threadId, namespace: "", id: spec.nextId(), now: spec.clock.now() });
    const node = asNode ?? inferAsNode(spec, tuple?.checkpoint.metadata.writes);
    if (node !== START && !spec.nodes.has(node)) {
      throw new TrellisError(
        "INVALID_ARGUMENT",
        `updateState: asNode "${node}" is not a node of graph "${spec.name}". Nodes: ${[...spec.nodes.keys()].join(", ")}.`,
        { details: { asNode: node } },
      );
    }
    const update = validateUpdate(spec.schema, node, values) ?? {};
    const applied = applyWrites(spec.schema, state.values, [{ node, update }]);
    // a caller's write, as a run's input is: checked against the declared schemas before it is stored
    checkTypedKeys(spec, applied.values, Object.keys(update), "updateState");
    spec.validateState?.(applied.values);
    const signal = new AbortController().signal;
    const routed = await route(
      spec,
      applied.values,
      [{ node, goto: [] }],
      node === START ? {} : (tuple?.checkpoint.barriers ?? {}),
      { signal, config },
    );
    const step = tuple ? tuple.checkpoint.step + 1 : -1;
    advance(state, {
      id: spec.nextId(state.checkpoint.id),
      now: spec.clock.now(),
      values: applied.values,
      changed: applied.changed,
      plan: routed.next,
      barriers: routed.barriers,
      metadata: updateMetadata(config.metadata, step, { [node]: Object.keys(update) }),
      appendOnly: (channel) => spec.schema[channel]?.appendOnly === true,
    });
    const writer = new CheckpointWriter(saver, "sync", () => lease.current, spec.snapshotEvery);
    await writer.checkpoint(state);
    await writer.finish(state);
    return { threadId: config.threadId, checkpointId: state.checkpoint.id };
  } finally {
    await lease.release();
  }
}

function inferAsNode(spec: GraphSpec, writes: Record<string, string[]> | undefined): string {
  const writers = Object.keys(writes ?? {}).filter((n) => spec.nodes.has(n));
  if (writers.length === 1) return writers[0] as string;
  if (writers.length === 0) return START;
  throw new TrellisError(
    "INVALID_ARGUMENT",
    `updateState: the last step was written by several nodes (${writers.join(", ")}); pass asNode to say which one this update comes from.`,
    { details: { writers } },
  );
}

/**
 * An update's checkpoint metadata: the caller's, under the update's own keys (they win). Those come
 * first and are set again: a literal adding keys after a spread makes a new hidden class per object on
 * V8, and the caller's metadata may be parsed input (no `Object.assign`).
 */
function updateMetadata(
  given: Record<string, unknown> | undefined,
  step: number,
  writes: Record<string, string[]>,
): CheckpointMetadata {
  const metadata: CheckpointMetadata = { source: "update", step, writes, ...given };
  metadata.source = "update";
  metadata.step = step;
  metadata.writes = writes;
  return metadata;
}
