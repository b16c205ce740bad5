import type { ChannelBlob, CheckpointSaver } from "@trellis/checkpoint";

/**
 * Copies a thread's checkpoints (the root graph's, oldest first, with their pending writes) to another
 * thread id: the copy has the same history, state and pending interrupts, and goes on independently.
 * Values are stored whole in the copy (deltas are rebuilt once). Returns how many checkpoints it copied.
 *
 * @example
 * await copyCheckpoints(saver, "thread-a", "thread-b");
 */
export async function copyCheckpoints(saver: CheckpointSaver, from: string, to: string): Promise<number> {
  const tuples = [];
  for await (const tuple of saver.list(from, { namespace: "" })) tuples.push(tuple);
  tuples.reverse();
  const stored = new Set<string>();
  for (const tuple of tuples) {
    const blobs: ChannelBlob[] = [];
    for (const [channel, version] of Object.entries(tuple.checkpoint.channelVersions)) {
      const key = `${channel}\u0000${version}`;
      if (stored.has(key)) continue;
      stored.add(key);
      blobs.push({ channel, version, kind: "full", value: tuple.values[channel] });
    }
    await saver.put({
      checkpoint: { ...tuple.checkpoint, threadId: to, channelDepths: {} },
      blobs,
      writes: tuple.pendingWrites,
    });
  }
  return tuples.length;
}
