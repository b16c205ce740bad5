import { CorruptCheckpointError } from "./errors.js";

/**
 * A channel value as a saver keeps it: whole, or the items appended to the version `base`.
 *
 * @example
 * const blobs = new Map<string, StoredBlob>([
 *   ["v1", { kind: "full", value: ["hi"] }],
 *   ["v2", { kind: "delta", base: "v1", items: ["there"] }],
 * ]);
 * rebuildChannelValue("v2", (v) => blobs.get(v), { threadId: "t1", channel: "messages" }); // ["hi", "there"]
 */
export type StoredBlob<T = unknown> = { kind: "full"; value: T } | { kind: "delta"; base: string; items: T[] };

/**
 * Rebuilds a channel's value at `version` by walking delta records back to the nearest full snapshot
 * and appending the items forward. `lookup` returns the stored record of a version. Savers that can
 * fetch the whole chain at once use {@link rebuildFromChain} instead.
 *
 * @example
 * const value = rebuildChannelValue("v3", (v) => blobs.get(v), { threadId, channel: "messages" });
 */
export function rebuildChannelValue(
  version: string,
  lookup: (version: string) => StoredBlob | undefined,
  where: { threadId: string; channel: string },
): unknown {
  const chain: StoredBlob[] = [];
  let current: string | undefined = version;
  while (current !== undefined) {
    const blob = lookup(current);
    if (!blob) {
      throw new CorruptCheckpointError(
        `Thread "${where.threadId}": the value of channel "${where.channel}" at version ${current} is missing from storage.`,
        { threadId: where.threadId, channel: where.channel, version: current },
      );
    }
    chain.push(blob);
    current = blob.kind === "delta" ? blob.base : undefined;
  }
  return rebuildFromChain(chain.reverse(), where);
}

/**
 * Rebuilds a value from its chain ordered oldest first: a full snapshot followed by deltas.
 *
 * @example
 * rebuildFromChain([{ kind: "full", value: [1] }, { kind: "delta", base: "v1", items: [2] }], where); // [1, 2]
 */
export function rebuildFromChain(chain: readonly StoredBlob[], where: { threadId: string; channel: string }): unknown {
  const [first, ...rest] = chain;
  if (first?.kind !== "full") {
    throw new CorruptCheckpointError(
      `Thread "${where.threadId}": the delta chain of channel "${where.channel}" does not start with a full value.`,
      { threadId: where.threadId, channel: where.channel },
    );
  }
  if (rest.length === 0) return first.value;
  if (!Array.isArray(first.value)) {
    throw new CorruptCheckpointError(
      `Thread "${where.threadId}": channel "${where.channel}" has deltas but its snapshot is not a list.`,
      { threadId: where.threadId, channel: where.channel },
    );
  }
  const out = first.value.slice();
  for (const blob of rest) {
    if (blob.kind !== "delta") {
      throw new CorruptCheckpointError(
        `Thread "${where.threadId}": a full value of channel "${where.channel}" appears inside a delta chain.`,
        { threadId: where.threadId, channel: where.channel },
      );
    }
    for (const item of blob.items) out.push(item);
  }
  return out;
}
