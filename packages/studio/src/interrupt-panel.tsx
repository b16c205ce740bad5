import {
  type FormPause,
  formAnswer,
  joinAnswers,
  type Pause,
  parseFreeAnswer,
  type QuestionsPause,
  type ReviewDecision,
  type ReviewPause,
  readPause,
  reviewAnswer,
} from "@trellis/protocol";
import { useState } from "preact/hooks";
import type { ApiInterrupt, ThreadState } from "./api-types.js";
import { JsonBlock } from "./json-block.js";
import { pausePlace } from "./status-labels.js";

/** What the panel asks its owner to do. */
export interface InterruptActions {
  /** Answer interrupts: one value, or a map by interrupt id when several wait. */
  resume(value: unknown): void;
  /** Write a state update, then continue the run from the breakpoint. */
  updateAndContinue(values: Record<string, unknown>): void;
}

/**
 * Shows why a thread is paused and takes the answer: each pending interrupt is read by `readPause`
 * (`@trellis/protocol`, the same reading the CLI and AG-UI use) and gets the form of its kind —
 * approve/reject buttons, options, a question list, a JSON-Schema form, LangChain's HITL review
 * (approve / edit / reject / respond per action) — and always a generic JSON/text answer; a static
 * breakpoint takes a state update and Continue. No app's state keys are known here.
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
  const interrupts = state.interrupts;
  return (
    <section class="panel interrupt-panel" data-testid="interrupt-panel">
      <h3>
        Waiting for you <small data-testid="pause-place">{pausePlace(state)}</small>
      </h3>
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
  const form = readPause(interrupt.value);
  const [text, setText] = useState("");
  return (
    <div class="interrupt" data-interrupt-id={interrupt.id} data-pause-kind={form.kind}>
      {form.kind === "review" ? null : <Payload value={interrupt.value} />}
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

function Shortcuts({ form, busy, onAnswer }: { form: Pause; busy: boolean; onAnswer: (v: unknown) => void }) {
  if (form.kind === "review") return <ReviewForm form={form} busy={busy} onAnswer={onAnswer} />;
  if (form.kind === "form") return <SchemaForm form={form} busy={busy} onAnswer={onAnswer} />;
  if (form.kind === "approve") {
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
  if (form.kind === "choose") {
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

function QuestionsForm(props: { form: QuestionsPause; busy: boolean; onAnswer: (v: unknown) => void }) {
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
  const [update, setUpdate] = useState("");
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <div class="interrupt breakpoint">
      <p class="question">
        Paused before {state.next.join(", ")} (a breakpoint). Change the state if you like, then continue.
      </p>
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

/** LangChain's HITL review: per action its description and arguments, a message, and its decisions. */
function ReviewForm({ form, busy, onAnswer }: { form: ReviewPause; busy: boolean; onAnswer: (v: unknown) => void }) {
  const [messages, setMessages] = useState<string[]>(() => form.actions.map(() => ""));
  const [edits, setEdits] = useState<string[]>(() => form.actions.map((a) => JSON.stringify(a.args, null, 2)));
  const [decided, setDecided] = useState<Array<ReviewDecision | undefined>>(() => form.actions.map(() => undefined));
  const [problem, setProblem] = useState<string | undefined>();
  const at = <T,>(list: T[], i: number, value: T) => list.map((x, j) => (j === i ? value : x));
  const decide = (i: number, decision: ReviewDecision) => {
    const next = at(decided, i, decision);
    if (next.every((d) => d !== undefined)) {
      onAnswer(reviewAnswer(form, next as ReviewDecision[]));
      setDecided(form.actions.map(() => undefined));
    } else setDecided(next);
  };
  return (
    <div class="review" data-testid="review-form">
      {form.actions.map((action, i) => {
        const allowed = new Set(action.allowedDecisions);
        const message = messages[i] ?? "";
        return (
          <div class="review-action" key={`${action.name}-${i}`} data-action={action.name}>
            <pre class="payload description">{action.description}</pre>
            <Payload value={action.args} />
            {allowed.has("reject") || allowed.has("respond") ? (
              <label class="free-answer">
                <span>Message (with reject or respond)</span>
                <textarea
                  rows={2}
                  value={message}
                  onInput={(e) => setMessages(at(messages, i, (e.target as HTMLTextAreaElement).value))}
                  data-testid="review-message"
                />
              </label>
            ) : null}
            {allowed.has("edit") ? (
              <details>
                <summary>Edit the arguments</summary>
                <textarea
                  rows={6}
                  value={edits[i]}
                  onInput={(e) => setEdits(at(edits, i, (e.target as HTMLTextAreaElement).value))}
                  data-testid="review-args"
                />
              </details>
            ) : null}
            {problem ? <p class="error-text">{problem}</p> : null}
            <div class="buttons">
              {allowed.has("approve") ? (
                <button type="button" class="primary" disabled={busy} onClick={() => decide(i, { type: "approve" })}>
                  Approve
                </button>
              ) : null}
              {allowed.has("edit") ? (
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => {
                    const args = parseFreeAnswer(edits[i] ?? "");
                    if (typeof args !== "object" || args === null || Array.isArray(args)) {
                      return setProblem("The edited arguments must be a JSON object.");
                    }
                    setProblem(undefined);
                    decide(i, { type: "edit", args: args as Record<string, unknown> });
                  }}
                >
                  Send edit
                </button>
              ) : null}
              {allowed.has("reject") ? (
                <button
                  type="button"
                  class="danger"
                  disabled={busy}
                  onClick={() => {
                    decide(i, message.trim() ? { type: "reject", message: message.trim() } : { type: "reject" });
                    setMessages(at(messages, i, ""));
                  }}
                >
                  Reject
                </button>
              ) : null}
              {allowed.has("respond") ? (
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => {
                    if (!message.trim()) return setProblem("Write the response first.");
                    setProblem(undefined);
                    decide(i, { type: "respond", message: message.trim() });
                    setMessages(at(messages, i, ""));
                  }}
                >
                  Respond
                </button>
              ) : null}
            </div>
          </div>
        );
      })}
    </div>
  );
}

/** A form declared with a JSON Schema: one field per property, typed by the schema. */
function SchemaForm({ form, busy, onAnswer }: { form: FormPause; busy: boolean; onAnswer: (v: unknown) => void }) {
  const names = Object.keys(form.schema.properties);
  const [fields, setFields] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      names.map((n) => {
        const d = form.schema.properties[n]?.default;
        return [n, d === undefined ? "" : String(d)];
      }),
    ),
  );
  const [problems, setProblems] = useState<string[]>([]);
  return (
    <div class="schema-form" data-testid="schema-form">
      {names.map((name) => {
        const field = form.schema.properties[name] ?? {};
        const set = (value: string) => setFields({ ...fields, [name]: value });
        return (
          <div class="question-field" key={name}>
            <span>
              {field.title ?? name}
              {form.schema.required?.includes(name) ? " *" : ""}
            </span>
            {field.enum || field.type === "boolean" ? (
              <select
                aria-label={field.title ?? name}
                value={fields[name]}
                onChange={(e) => set((e.target as HTMLSelectElement).value)}
                data-testid={`form-${name}`}
              >
                <option value="">—</option>
                {(field.enum ?? [true, false]).map((o) => (
                  <option key={String(o)} value={String(o)}>
                    {String(o)}
                  </option>
                ))}
              </select>
            ) : (
              <input
                aria-label={field.title ?? name}
                type={field.type === "number" || field.type === "integer" ? "number" : "text"}
                value={fields[name]}
                onInput={(e) => set((e.target as HTMLInputElement).value)}
                data-testid={`form-${name}`}
              />
            )}
          </div>
        );
      })}
      {problems.map((p) => (
        <p class="error-text" key={p}>
          {p}
        </p>
      ))}
      <button
        type="button"
        class="primary"
        disabled={busy}
        onClick={() => {
          const read = formAnswer(form, fields);
          if (!read.ok) return setProblems(read.problems);
          setProblems([]);
          onAnswer(read.value);
        }}
        data-testid="form-send"
      >
        Send
      </button>
    </div>
  );
}
