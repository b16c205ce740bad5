import type { StoredRow } from "./memory-rows.js";

/**
 * A channel value as {@link MemorySaver} keeps it, serialized: the whole value's text, or the items
 * appended to the version `base`. @internal
 */
export type StoredText = string | { base: string; text: string };

/** A pending write as {@link MemorySaver} keeps it. @internal */
export interface StoredWrite {
  taskId: string;
  channel: string;
  text: string;
}

/** One checkpoint with what its put stored beside it. @internal */
export interface NamespaceRow {
  row: StoredRow;
  /**
   * Values stored under this checkpoint's id as their version (what the runtime does): channel → value,
   * in an object without prototype (smaller than a `Map` for the few channels a step changes).
   */
  blobs: Record<string, StoredText> | undefined;
  /** Writes recorded against this checkpoint: `${taskId}\u0000${channel}` → write, in the order put. */
  writes: Map<string, StoredWrite> | undefined;
}

/**
 * One namespace of one thread in {@link MemorySaver}: its checkpoints in an array sorted by id (ids are
 * time-sortable, so a superstep's put appends), each holding the values versioned by its own id and the
 * writes recorded against it. A put adds one array element and no hash-table entry; a value under any
 * other version (another caller's scheme, or one whose checkpoint was pruned) is kept in `loose`. @internal
 */
export class NamespaceStore {
  readonly rows: NamespaceRow[] = [];
  /** channel → version → value, for versions that are not a stored checkpoint's id. */
  readonly loose = new Map<string, Map<string, StoredText>>();

  /** Index of the checkpoint `id`, or -1. The last one is checked first: a run reads and writes its head. */
  indexOf(id: string): number {
    const rows = this.rows;
    let hi = rows.length - 1;
    if (hi < 0) return -1;
    const last = (rows[hi] as NamespaceRow).row.checkpoint.id;
    if (last === id) return hi;
    if (last < id) return -1;
    let lo = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = (rows[mid] as NamespaceRow).row.checkpoint.id;
      if (at === id) return mid;
      if (at < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  get(id: string): NamespaceRow | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.rows[i];
  }

  /** Stores a checkpoint row with its values; a checkpoint put again keeps what was stored beside it. */
  put(row: StoredRow, blobs: ReadonlyArray<readonly [string, string, StoredText]>, writes: readonly StoredWrite[]) {
    const id = row.checkpoint.id;
    const i = this.indexOf(id);
    let entry: NamespaceRow;
    if (i >= 0) {
      entry = this.rows[i] as NamespaceRow;
      entry.row = row;
    } else {
      entry = { row, blobs: undefined, writes: undefined };
      insertSorted(this.rows, entry, id);
    }
    for (const [channel, version, stored] of blobs) this.#setBlob(channel, version, stored, entry);
    if (writes.length > 0) this.addWrites(entry, writes);
  }

  addWrites(entry: NamespaceRow, writes: readonly StoredWrite[]): void {
    entry.writes ??= new Map();
    for (const w of writes) entry.writes.set(`${w.taskId}\u0000${w.channel}`, w);
  }

  /** Every value and write text the namespace holds (for counting and sharing them). */
  *texts(): Iterable<string> {
    for (const entry of this.rows) {
      if (entry.blobs) for (const channel in entry.blobs) yield textOf(entry.blobs[channel] as StoredText);
      if (entry.writes) for (const w of entry.writes.values()) yield w.text;
    }
    for (const versions of this.loose.values()) for (const stored of versions.values()) yield textOf(stored);
  }

  /** The value of `channel` at `version`. */
  blob(channel: string, version: string): StoredText | undefined {
    return this.get(version)?.blobs?.[channel] ?? this.loose.get(channel)?.get(version);
  }

  #setBlob(channel: string, version: string, stored: StoredText, putBy: NamespaceRow): void {
    const owner = putBy.row.checkpoint.id === version ? putBy : this.get(version);
    if (owner) {
      owner.blobs ??= Object.create(null) as Record<string, StoredText>;
      owner.blobs[channel] = stored;
      this.loose.get(channel)?.delete(version);
      return;
    }
    let versions = this.loose.get(channel);
    if (!versions) {
      versions = new Map();
      this.loose.set(channel, versions);
    }
    versions.set(version, stored);
  }

  /** Keeps the newest `keep` checkpoints and every value they still need (delta chains included). */
  prune(keep: number): void {
    const drop = this.rows.length - keep;
    if (drop <= 0) return;
    const kept = this.rows.slice(drop);
    // The values the kept checkpoints need, found while every row is still there.
    const needed = new Map<string, Map<string, StoredText>>();
    for (const { row } of kept) {
      for (const [channel, version] of Object.entries(row.checkpoint.channelVersions)) {
        let versions = needed.get(channel);
        if (!versions) {
          versions = new Map();
          needed.set(channel, versions);
        }
        let current: string | undefined = version;
        while (current !== undefined && !versions.has(current)) {
          const stored = this.blob(channel, current);
          if (!stored) break;
          versions.set(current, stored);
          current = typeof stored === "string" ? undefined : stored.base;
        }
      }
    }
    this.rows.splice(0, drop);
    this.loose.clear();
    for (const entry of this.rows) {
      if (!entry.blobs) continue;
      for (const channel of Object.keys(entry.blobs)) {
        if (!needed.get(channel)?.has(entry.row.checkpoint.id)) delete entry.blobs[channel];
      }
    }
    for (const [channel, versions] of needed) {
      for (const [version, stored] of versions) {
        if (this.get(version)?.blobs?.[channel] === stored) continue;
        let loose = this.loose.get(channel);
        if (!loose) {
          loose = new Map();
          this.loose.set(channel, loose);
        }
        loose.set(version, stored);
      }
    }
  }
}

function textOf(stored: StoredText): string {
  return typeof stored === "string" ? stored : stored.text;
}

function insertSorted(rows: NamespaceRow[], entry: NamespaceRow, id: string): void {
  let i = rows.length;
  while (i > 0 && (rows[i - 1] as NamespaceRow).row.checkpoint.id > id) i--;
  if (i === rows.length) rows.push(entry);
  else rows.splice(i, 0, entry);
}
