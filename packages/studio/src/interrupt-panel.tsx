import { useState } from "preact/hooks";
import {
  breakpointForm,
  type InterruptForm,
  interruptForm,
  joinAnswers,
  parseFreeAnswer,
  twiDecision,
} from "./answer-forms.js";
import type { ApiInterrupt, ThreadState } from "./api-types.js";
import { JsonBlock } from "./json-block.js";

/** What the panel asks its owner to do. */
export interface InterruptActions {
  /** Answer interrupts: one value, or a map by interrupt id when several wait. */
  resume(value: unknown): void;
  /** Write a state update, then continue the run from the breakpoint. */
  updateAndContinue(values: Record<string, unknown>): void;
}

/**
 * Shows why a thread is paused and takes the answer: the payload of each pending interrupt with a form
 * fitted to it (approve/reject buttons, quiz options, a text box — and always a generic JSON/text
 * answer), or, at a static breakpoint, a state update and Continue; twi-author's two pauses (breakpoints
 * or interrupts) get its review decisions, sent as the seed's state update.
 *
 * @example
 * <InterruptPanel state={state} busy={false} actions={{ resume, updateAndContinue }} />
 */
export function InterruptPanel({
  state,
  busy,
  actions,
}: {
  state: ThreadState;
  busy: boolean;
  actions: InterruptActions;
}) {
  if (state.next.length === 0) return null;
  // twi-author's pauses get its decision form whether they wait as breakpoints or as HITL interrupts
  const twi = breakpointForm(state.next, state.values).kind !== "continue";
  const interrupts = twi ? [] : state.interrupts;
  return (
    <section class="panel interrupt-panel" data-testid="interrupt-panel">
      <h3>Waiting for you {state.next.length ? <small>before {state.next.join(", ")}</small> : null}</h3>
      {interrupts.length > 0 ? (
        interrupts.map((i) => (
          <InterruptItem
            key={i.id}
            interrupt={i}
            busy={busy}
            onAnswer={(value) => actions.resume(interrupts.length === 1 ? value : { [i.id]: value })}
          />
        ))
      ) : (
        <BreakpointItem state={state} busy={busy} actions={actions} />
      )}
    </section>
  );
}

function InterruptItem(props: { interrupt: ApiInterrupt; busy: boolean; onAnswer: (value: unknown) => void }) {
  const { interrupt, busy, onAnswer } = props;
  const form = interruptForm(interrupt.value);
  const [text, setText] = useState("");
  return (
    <div class="interrupt" data-interrupt-id={interrupt.id}>
      <Payload value={interrupt.value} />
      <p class="question">{form.question.split("\n")[0]}</p>
      <Shortcuts form={form} busy={busy} onAnswer={onAnswer} />
      <label class="free-answer">
        <span>{form.kind === "text" ? "Your answer" : "Or another answer"} (text or JSON)</span>
        <textarea
          rows={form.kind === "text" ? 3 : 2}
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          data-testid="answer-text"
        />
      </label>
      <button type="button" disabled={busy} onClick={() => onAnswer(parseFreeAnswer(text))} data-testid="answer-send">
        Send answer
      </button>
    </div>
  );
}

function Shortcuts({ form, busy, onAnswer }: { form: InterruptForm; busy: boolean; onAnswer: (v: unknown) => void }) {
  if (form.kind === "approval") {
    return (
      <div class="buttons">
        <button type="button" class="primary" disabled={busy} onClick={() => onAnswer(true)}>
          Approve
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => onAnswer(false)}>
          Reject
        </button>
      </div>
    );
  }
  if (form.kind === "questions") return <QuestionsForm form={form} busy={busy} onAnswer={onAnswer} />;
  if (form.kind === "choice") {
    return (
      <div class="buttons options">
        {form.options.map((o) => (
          <button type="button" key={o.key} disabled={busy} onClick={() => onAnswer(o.key)} title={o.label}>
            <b>{o.key}</b> {o.label}
          </button>
        ))}
      </div>
    );
  }
  return null;
}

function QuestionsForm(props: {
  form: Extract<InterruptForm, { kind: "questions" }>;
  busy: boolean;
  onAnswer: (v: unknown) => void;
}) {
  const { form, busy, onAnswer } = props;
  const [answers, setAnswers] = useState<string[]>(() => form.questions.map(() => ""));
  const set = (i: number, value: string) => setAnswers((a) => a.map((x, j) => (j === i ? value : x)));
  return (
    <div class="questions" data-testid="questions-form">
      {form.questions.map((q, i) => (
        <div class="question-field" key={q.question}>
          <span>
            {i + 1}. {q.question}
          </span>
          {q.options.length > 0 ? (
            <div class="buttons">
              {q.options.map((o) => (
                <button
                  type="button"
                  key={o}
                  class={answers[i] === o ? "primary" : ""}
                  disabled={busy}
                  onClick={() => set(i, o)}
                >
                  {o}
                </button>
              ))}
            </div>
          ) : (
            <input
              aria-label={q.question}
              value={answers[i]}
              onInput={(e) => set(i, (e.target as HTMLInputElement).value)}
            />
          )}
        </div>
      ))}
      <button type="button" class="primary" disabled={busy} onClick={() => onAnswer(joinAnswers(answers))}>
        Send answers
      </button>
    </div>
  );
}

function Payload({ value }: { value: unknown }) {
  if (typeof value === "string") return <pre class="payload">{value}</pre>;
  if (typeof value !== "object" || value === null) return <JsonBlock value={value} />;
  return (
    <dl class="payload">
      {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
        <>
          <dt key={`${k}-t`}>{k}</dt>
          <dd key={`${k}-d`}>{typeof v === "string" ? <pre>{v}</pre> : <JsonBlock value={v} />}</dd>
        </>
      ))}
    </dl>
  );
}

function BreakpointItem({ state, busy, actions }: { state: ThreadState; busy: boolean; actions: InterruptActions }) {
  const form = breakpointForm(state.next, state.values);
  const [feedback, setFeedback] = useState("");
  const [update, setUpdate] = useState("");
  const [problem, setProblem] = useState<string | undefined>();
  const draft = state.values.draft;
  if (form.kind === "twi-review" || form.kind === "twi-final-approval") {
    const review = form.kind === "twi-review";
    return (
      <div class="interrupt breakpoint" data-testid={review ? "twi-review" : "twi-final-approval"}>
        <p class="question">
          {review
            ? `Review the draft (revision ${String(state.values.revision_count ?? 0)}): approve it, ask for a revision, or reject it.`
            : "Final approval: approve to generate the signed PDF."}
        </p>
        {typeof draft === "string" ? <pre class="payload draft">{draft}</pre> : null}
        {review ? (
          <>
            <label class="free-answer">
              <span>What should change? (for a revision)</span>
              <textarea
                rows={2}
                value={feedback}
                onInput={(e) => setFeedback((e.target as HTMLTextAreaElement).value)}
                data-testid="revision-feedback"
              />
            </label>
            {problem ? <p class="error-text">{problem}</p> : null}
            <div class="buttons">
              <button
                type="button"
                class="primary"
                disabled={busy}
                onClick={() => actions.updateAndContinue(twiDecision("approve", "", new Date()))}
              >
                Approve
              </button>
              <button
                type="button"
                disabled={busy}
                onClick={() => {
                  if (!feedback.trim()) return setProblem("Write what should change first.");
                  setProblem(undefined);
                  actions.updateAndContinue(twiDecision("revision", feedback, new Date()));
                  setFeedback("");
                }}
              >
                Request revision
              </button>
              <button
                type="button"
                class="danger"
                disabled={busy}
                onClick={() => actions.updateAndContinue(twiDecision("reject", "", new Date()))}
              >
                Reject
              </button>
            </div>
          </>
        ) : (
          <div class="buttons">
            <button
              type="button"
              class="primary"
              disabled={busy}
              onClick={() => actions.updateAndContinue(twiDecision("final", "", new Date()))}
            >
              Approve and generate PDF
            </button>
          </div>
        )}
      </div>
    );
  }
  return (
    <div class="interrupt breakpoint">
      <p class="question">Paused before {form.node} (a breakpoint). Change the state if you like, then continue.</p>
      <label class="free-answer">
        <span>State update (JSON object, optional)</span>
        <textarea rows={3} value={update} onInput={(e) => setUpdate((e.target as HTMLTextAreaElement).value)} />
      </label>
      {problem ? <p class="error-text">{problem}</p> : null}
      <button
        type="button"
        class="primary"
        disabled={busy}
        onClick={() => {
          const parsed = update.trim() ? parseFreeAnswer(update) : {};
          if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
            return setProblem('The state update must be a JSON object, like {"key": "value"}.');
          }
          setProblem(undefined);
          actions.updateAndContinue(parsed as Record<string, unknown>);
        }}
      >
        Continue
      </button>
    </div>
  );
}
