import type { RunOutcome } from "./run-loop.js";
import type { EventSink, StreamEvent, StreamMode, UnnumberedEvent } from "./stream-events.js";

/**
 * The events of a run as an async iterator, plus how the run ended: `outcome` resolves once the stream
 * is drained (rejects with the run's error), so a caller learns "done" or "interrupted", the pending
 * interrupts and the final values without reading the thread again.
 *
 * @example
 * const events = graph.streamEvents(input, { threadId });
 * for await (const e of events) forward(e);
 * const { status, interrupts } = await events.outcome;
 */
export interface RunEventStream extends AsyncIterableIterator<StreamEvent> {
  readonly outcome: Promise<RunOutcome>;
}

/**
 * Runs `execute` and turns the events it pushes into an async iterator, numbered from 1. The run starts
 * on the first `next()`; leaving the loop early (`break`) cancels it. A failed run rethrows its error
 * after the events that came before it. @internal
 */
export function eventStream(
  modes: ReadonlySet<StreamMode>,
  subgraphs: boolean,
  execute: (sink: EventSink, signal: AbortSignal) => Promise<RunOutcome>,
): RunEventStream {
  const buffer: StreamEvent[] = [];
  let seq = 0;
  let wake: (() => void) | undefined;
  let finished: { error?: unknown } | undefined;
  let started = false;
  let settle: (r: { ok: true; outcome: RunOutcome } | { ok: false; error: unknown }) => void = () => undefined;
  // never rejects, so a caller that does not ask for the outcome sees no unhandled rejection
  const settled = new Promise<{ ok: true; outcome: RunOutcome } | { ok: false; error: unknown }>((r) => {
    settle = r;
  });
  const controller = new AbortController();
  const sink: EventSink = {
    modes,
    subgraphs,
    push(event: UnnumberedEvent) {
      // `seq` before the spread, then set: a literal adding a key after a spread is slow on V8
      const numbered = { seq: 0, ...event } as StreamEvent;
      numbered.seq = ++seq;
      buffer.push(numbered);
      wake?.();
    },
  };
  const start = () => {
    started = true;
    execute(sink, controller.signal).then(
      (outcome) => {
        finished = {};
        settle({ ok: true, outcome });
        wake?.();
      },
      (error: unknown) => {
        finished = { error };
        settle({ ok: false, error });
        wake?.();
      },
    );
  };
  let cursor = 0;
  const iterator: RunEventStream = {
    get outcome() {
      if (!started) start();
      return settled.then((r) => (r.ok ? r.outcome : Promise.reject(r.error)));
    },
    async next() {
      if (!started) start();
      for (;;) {
        if (cursor < buffer.length) {
          const event = buffer[cursor] as StreamEvent;
          buffer[cursor++] = undefined as unknown as StreamEvent;
          if (cursor > 1024 && cursor * 2 > buffer.length) {
            buffer.splice(0, cursor);
            cursor = 0;
          }
          return { value: event, done: false };
        }
        if (finished) {
          if (finished.error !== undefined && !controller.signal.aborted) {
            const { error } = finished;
            finished = {};
            throw error;
          }
          return { value: undefined, done: true };
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
    async return() {
      controller.abort(new Error("The stream's consumer stopped reading."));
      if (!started) settle({ ok: false, error: new Error("The stream was closed before it started.") });
      finished ??= {};
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** The sink a nested run writes to: messages and custom events always, the rest only with `subgraphs`. @internal */
export function childSink(parent: EventSink | undefined): EventSink | undefined {
  if (!parent) return undefined;
  if (parent.subgraphs) return parent;
  const modes = new Set<StreamMode>([...parent.modes].filter((m) => m === "messages" || m === "custom"));
  if (modes.size === 0) return undefined;
  return { modes, subgraphs: false, push: (event) => parent.push(event) };
}
