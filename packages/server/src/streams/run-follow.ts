/**
 * Following a run's stream: the stored events, then the live ones from the event hub, without gap or
 * duplicate, in bounded memory whatever the reader does.
 */
import type { RunStore, StoredEvent } from "../stores/run-store.js";
import { TERMINAL_RUN_STATUSES } from "../stores/run-store.js";
import type { EventHub } from "./event-hub.js";
import { wantsEvent } from "./stream-format.js";

/** The size of a live event's data as JSON, computed once per event object (followers share them). */
const eventSizes = new WeakMap<StoredEvent, number>();
function eventBytes(e: StoredEvent): number {
  let size = eventSizes.get(e);
  if (size === undefined) {
    size = JSON.stringify(e.data ?? null).length;
    eventSizes.set(e, size);
  }
  return size;
}

/**
 * Bytes of stored event data a replay reads at a time past a page's first event (1 MiB): what one
 * stalled SSE reader holds at most beside one event, however large the run's events are.
 *
 * @example
 * manager.follow(runId, 0, { pageBytes: REPLAY_PAGE_BYTES });
 */
export const REPLAY_PAGE_BYTES = 1 << 20;

/** Options of {@link followRun}. */
export interface FollowOptions {
  modes?: readonly string[] | undefined;
  signal?: AbortSignal | undefined;
  pageSize?: number;
  pageBytes?: number;
}

/**
 * A run's events numbered above `afterSeq`: the stored ones, then live ones until the run ends,
 * without gap or duplicate. Ends at once for a run that already finished.
 *
 * Memory stays bounded whatever the reader does: stored events are read a page at a time as the
 * reader takes them — at most `pageSize` events (default 100) and, past the first, `pageBytes` bytes
 * of stored data (default 1 MiB), so a run of a few large events is paged too — and while the reader
 * is slow at most `10 × pageSize` live events, and `10 × pageBytes` of them, wait for it: past that
 * they are dropped and read back from the store when their turn comes (events are stored before they
 * are published). A stalled reader holds one page and that buffer, not the run.
 *
 * @example
 * for await (const e of followRun({ store, hub }, runId, 0, { modes: ["values"] })) send(e);
 */
export async function* followRun(
  parts: { store: RunStore; hub: EventHub },
  runId: string,
  afterSeq: number,
  options: FollowOptions = {},
): AsyncGenerator<StoredEvent> {
  const { store, hub } = parts;
  const pageSize = Math.max(1, options.pageSize ?? 100);
  const page = { limit: pageSize, maxBytes: Math.max(1, options.pageBytes ?? REPLAY_PAGE_BYTES) };
  const liveMax = 10 * pageSize;
  const liveBytesMax = 10 * page.maxBytes;
  let bufferBytes = 0;
  const buffer: StoredEvent[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const poke = () => {
    wake?.();
    wake = undefined;
  };
  const off = hub.subscribe(runId, {
    event: (e) => {
      // the reader is behind: forget what waits, the store has it (the gap is noticed below)
      const size = eventBytes(e);
      if (buffer.length >= liveMax || bufferBytes + size > liveBytesMax) {
        buffer.length = 0;
        bufferBytes = 0;
      }
      buffer.push(e);
      bufferBytes += size;
      poke();
    },
    end: () => {
      ended = true;
      poke();
    },
  });
  const onAbort = () => {
    ended = true;
    poke();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let last = afterSeq;
  try {
    /** The events not yet given, synced to disk before they go: a reader may be a client (Last-Event-ID). */
    const emit = async function* (events: StoredEvent[]) {
      const out: StoredEvent[] = [];
      for (const e of events) {
        if (e.seq <= last) continue;
        last = e.seq;
        if (wantsEvent(e.event, options.modes)) out.push(e);
      }
      if (out.length) await store.syncCommits?.();
      yield* out;
    };
    /** The stored events after `last`, a page at a time, each page read when the previous one is taken. */
    const replay = async function* () {
      for (;;) {
        const events = await store.eventsAfter(runId, last, page);
        yield* emit(events);
        // a page cut by bytes may be short with more behind it: only an empty page is the end
        if (events.length === 0 || options.signal?.aborted) return;
      }
    };
    if (afterSeq < Number.MAX_SAFE_INTEGER) yield* replay();
    for (;;) {
      if (options.signal?.aborted) return;
      if (!ended) {
        const run = await store.getRun(runId);
        if (!run || TERMINAL_RUN_STATUSES.has(run.status)) ended = true;
      }
      if (buffer.length) {
        const batch = buffer.splice(0);
        bufferBytes = 0;
        // a live event past the next number: some were published before this follower listened, or
        // were dropped while it was behind
        if ((batch[0]?.seq ?? 0) > last + 1 && afterSeq < Number.MAX_SAFE_INTEGER) yield* replay();
        yield* emit(batch);
      }
      if (ended) {
        if (afterSeq < Number.MAX_SAFE_INTEGER) yield* replay();
        return;
      }
      await new Promise<void>((r) => {
        wake = r;
        if (buffer.length || ended) poke();
        // look again now and then: an end published before this follower listened is not heard
        setTimeout(poke, 1_000).unref?.();
      });
    }
  } finally {
    off();
    options.signal?.removeEventListener("abort", onAbort);
  }
}
