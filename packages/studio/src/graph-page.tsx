import { useEffect, useState } from "preact/hooks";
import type { ApiClient } from "./api-client.js";
import type { Assistant, GraphJson } from "./api-types.js";
import { exampleInput } from "./example-inputs.js";
import { GraphView } from "./graph-view.js";
import type { LiveRuns } from "./live-runs.js";
import { fieldValue, initialFieldValue, type SchemaField, schemaFields } from "./schema-fields.js";

/** Props of {@link GraphPage}. */
export interface GraphPageProps {
  api: ApiClient;
  live: LiveRuns;
  assistant: Assistant;
  onError(error: unknown): void;
  /** Called with the new thread once a run started. */
  onStarted(threadId: string): void;
}

/**
 * One graph: its drawing and a form to start a run: a field for each typed input key of the graph's
 * schema (a choice, a checkbox, a number or text box), and the other keys as JSON (prefilled with an
 * example).
 *
 * @example
 * <GraphPage api={api} live={live} assistant={a} onError={show} onStarted={(id) => go(`#/thread/${id}`)} />
 */
export function GraphPage({ api, live, assistant, onError, onStarted }: GraphPageProps) {
  const id = assistant.assistant_id;
  const [graph, setGraph] = useState<GraphJson | undefined>();
  const [input, setInput] = useState("");
  const [fields, setFields] = useState<SchemaField[]>([]);
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  /** The typed keys the input sets: those of the example, those the person changed, required ones. */
  const [used, setUsed] = useState<ReadonlySet<string>>(new Set());
  const [problem, setProblem] = useState<string | undefined>();
  const [starting, setStarting] = useState(false);

  useEffect(() => {
    setGraph(undefined);
    setProblem(undefined);
    api.graph(id).then(setGraph).catch(onError);
    void api
      .schemas(id)
      .catch(() => ({}) as Awaited<ReturnType<ApiClient["schemas"]>>)
      .then((schemas) => {
        const keys = Object.keys(schemas.state_schema?.properties ?? schemas.input_schema?.properties ?? {});
        const example = exampleInput(id, keys);
        const typed = schemaFields(schemas.input_schema);
        const rest = Object.fromEntries(Object.entries(example).filter(([k]) => !typed.some((f) => f.key === k)));
        setFields(typed);
        setValues(Object.fromEntries(typed.map((f) => [f.key, initialFieldValue(f, example)])));
        setUsed(new Set(typed.filter((f) => f.key in example || f.required).map((f) => f.key)));
        setInput(JSON.stringify(rest, null, 2));
      });
  }, [id]);

  const change = (key: string, value: string | boolean) => {
    setValues((v) => ({ ...v, [key]: value }));
    setUsed((u) => new Set([...u, key]));
  };

  const start = async () => {
    let parsed: unknown;
    try {
      parsed = input.trim() === "" ? {} : JSON.parse(input);
    } catch (error) {
      return setProblem(`The input is not valid JSON: ${(error as Error).message}`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return setProblem('The input must be a JSON object of state keys, like {"request": "…"}.');
    }
    for (const field of fields) {
      if (!used.has(field.key)) continue;
      const read = fieldValue(field, values[field.key] ?? "");
      if ("problem" in read) return setProblem(read.problem);
      if (read.value !== undefined) (parsed as Record<string, unknown>)[field.key] = read.value;
    }
    setProblem(undefined);
    setStarting(true);
    try {
      const thread = await api.createThread(id);
      void live.start(thread.thread_id, { assistant_id: id, input: parsed });
      onStarted(thread.thread_id);
    } catch (error) {
      onError(error);
    } finally {
      setStarting(false);
    }
  };

  return (
    <div class="graph-page">
      <header class="page-head">
        <h2>{assistant.name}</h2>
        <code>{id}</code>
      </header>
      {assistant.description ? <p class="description">{assistant.description}</p> : null}
      <div class="columns">
        <section class="panel drawing" data-testid="graph-drawing">
          {graph ? <GraphView graph={graph} /> : <p class="muted">Drawing…</p>}
        </section>
        <section class="panel start-run">
          <h3>Start a run</h3>
          {fields.length > 0 ? (
            <div class="schema-fields" data-testid="schema-fields">
              {fields.map((f) => (
                <FieldInput key={f.key} field={f} value={values[f.key] ?? ""} onChange={(v) => change(f.key, v)} />
              ))}
            </div>
          ) : null}
          <label>
            <span>{fields.length > 0 ? "Other input (JSON state keys)" : "Input (JSON state keys)"}</span>
            <textarea
              rows={12}
              value={input}
              onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)}
              data-testid="run-input"
            />
          </label>
          {problem ? <p class="error-text">{problem}</p> : null}
          <button
            type="button"
            class="primary"
            disabled={starting}
            onClick={() => void start()}
            data-testid="start-run"
          >
            {starting ? "Starting…" : "Start run"}
          </button>
        </section>
      </div>
    </div>
  );
}

/** One typed field of the run form, as its schema says: a choice, a checkbox, a number or text box. */
function FieldInput({
  field,
  value,
  onChange,
}: {
  field: SchemaField;
  value: string | boolean;
  onChange(value: string | boolean): void;
}) {
  const testId = `field-${field.key}`;
  const label = (
    <span>
      {field.key}
      {field.required ? " *" : ""}
      {field.description ? <small class="muted"> {field.description}</small> : null}
    </span>
  );
  if (field.kind === "checkbox") {
    return (
      <label class="field checkbox">
        <input
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
          data-testid={testId}
        />
        {label}
      </label>
    );
  }
  if (field.kind === "choice") {
    return (
      <label class="field">
        {label}
        <select
          value={String(value)}
          onChange={(e) => onChange((e.target as HTMLSelectElement).value)}
          data-testid={testId}
        >
          {field.nullable || !field.required ? <option value="">—</option> : null}
          {field.choices?.map((c) => (
            <option key={String(c)} value={String(c)}>
              {String(c)}
            </option>
          ))}
        </select>
      </label>
    );
  }
  const numeric = field.kind === "integer" || field.kind === "number";
  return (
    <label class="field">
      {label}
      <input
        type={numeric ? "number" : "text"}
        value={String(value)}
        {...(numeric && field.minimum !== undefined ? { min: field.minimum } : {})}
        {...(numeric && field.maximum !== undefined ? { max: field.maximum } : {})}
        {...(field.kind === "integer" ? { step: 1 } : {})}
        required={field.required}
        onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        data-testid={testId}
      />
    </label>
  );
}
