import { useState } from "preact/hooks";
import type { ThreadState } from "./api-types.js";
import { changedKeys } from "./state-reading.js";

/** What the timeline asks its owner to do. */
export interface TimelineActions {
  /** Fork: write `values` as a new checkpoint branching from `checkpointId`, then run on from it when `run`. */
  fork(checkpointId: string, values: Record<string, unknown>, run: boolean): void;
  /** Run again from a checkpoint, unchanged. */
  replay(checkpointId: string): void;
}

/**
 * A thread's checkpoints, newest first: step, source, the keys each step wrote and the nodes next.
 * Opening one shows its state as editable JSON; "Fork" writes the edited keys as a new checkpoint from
 * there (and can run on), "Replay" runs again from it.
 *
 * @example
 * <StateTimeline history={history} busy={false} actions={{ fork, replay }} />
 */
export function StateTimeline({
  history,
  busy,
  actions,
}: {
  history: ThreadState[];
  busy: boolean;
  actions: TimelineActions;
}) {
  // the checkpoint opened, as it was when opened: a checkpoint never changes, so a refresh of the
  // history (a new list, or one that no longer holds it) neither redraws nor closes its editor
  const [open, setOpen] = useState<ThreadState | undefined>();
  const openId = open?.checkpoint.checkpoint_id ?? undefined;
  return (
    <section class="panel timeline" data-testid="timeline">
      <h3>State timeline</h3>
      {history.length === 0 ? <p class="muted">No checkpoints yet.</p> : null}
      <ol>
        {history.map((h) => {
          const id = h.checkpoint.checkpoint_id ?? "";
          const meta = h.metadata ?? {};
          const writes = meta.writes ? Object.keys(meta.writes).join(", ") : "";
          return (
            <li key={id} class={id === openId ? "open" : ""}>
              <button type="button" class="link" onClick={() => setOpen(id === openId ? undefined : h)}>
                <span class="step">step {String(meta.step ?? "?")}</span>
                <span class={`source source-${String(meta.source ?? "")}`}>{String(meta.source ?? "")}</span>
                {writes ? <span class="writes">{writes}</span> : null}
                {h.next.length ? <span class="next">→ {h.next.join(", ")}</span> : <span class="next">end</span>}
                {h.interrupts.length ? <span class="badge interrupted">paused</span> : null}
              </button>
            </li>
          );
        })}
      </ol>
      {open ? (
        <CheckpointEditor
          key={openId}
          state={open}
          busy={busy}
          actions={{
            fork: (id, values, run) => {
              setOpen(undefined);
              actions.fork(id, values, run);
            },
            replay: (id) => {
              setOpen(undefined);
              actions.replay(id);
            },
          }}
        />
      ) : null}
    </section>
  );
}

/**
 * The editor of one checkpoint (keyed by its id): the text is the person's from the first keystroke —
 * nothing but their typing changes it while the editor is open (no effect copies the checkpoint back in:
 * an effect of the first render, run late, would put it back over what was typed).
 */
function CheckpointEditor({ state, busy, actions }: { state: ThreadState; busy: boolean; actions: TimelineActions }) {
  const [text, setText] = useState(() => JSON.stringify(state.values, null, 2));
  const [problem, setProblem] = useState<string | undefined>();
  const id = state.checkpoint.checkpoint_id as string;
  const edited = (): Record<string, unknown> | undefined => {
    try {
      const v = JSON.parse(text) as unknown;
      if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("the state must be a JSON object");
      setProblem(undefined);
      return changedKeys(state.values, v as Record<string, unknown>);
    } catch (error) {
      setProblem(`Not valid JSON: ${(error as Error).message}`);
      return undefined;
    }
  };
  return (
    <div class="checkpoint" data-testid="checkpoint-editor">
      <p class="muted">
        Checkpoint <code>{id}</code>
        {state.created_at ? ` · ${new Date(state.created_at).toLocaleString()}` : ""}
        {state.next.length ? ` · next: ${state.next.join(", ")}` : ""}
      </p>
      <textarea rows={14} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      {problem ? <p class="error-text">{problem}</p> : null}
      <div class="buttons">
        <button
          type="button"
          class="primary"
          disabled={busy}
          onClick={() => {
            const v = edited();
            if (v) actions.fork(id, v, true);
          }}
        >
          Fork and run from here
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            const v = edited();
            if (v) actions.fork(id, v, false);
          }}
        >
          Fork only
        </button>
        <button type="button" disabled={busy} onClick={() => actions.replay(id)}>
          Replay unchanged
        </button>
      </div>
    </div>
  );
}
